// The CPU-bound mode of `bun run bench` (BENCH_MODE=cpu or `--cpu`): the fake upstream answers at once, so
// the gateway's own work is the bottleneck; the bare proxy and the gateway are each pinned to one core
// (taskset), the load driver and the upstream to another. What it compares is the CPU time of the whole
// server process (all its threads, the write-behind included: utime + stime of /proc/<pid>/stat) per
// request, which scheduling noise on a shared machine hides far less than latency. Proxy and gateway runs
// are interleaved over BENCH_REPETITIONS (3) rounds, after BENCH_PRIME_MS (6000) of unmeasured load on each.
// Targets are printed as met / not met; never a test.
import { cpus, loadavg } from "node:os";
import type { DriverResult } from "../load-driver";
import { drive, type ProcessUsage } from "./drive";
import { formatTable } from "./format";
import { chatBody, gatewayHeaders, startStack } from "./stack";

type Target = "proxy" | "gateway";

interface Scenario {
  id: string;
  title: string;
  stream: boolean;
  concurrency: number;
}

interface Run {
  target: Target;
  repetition: number;
  result: DriverResult;
  usage: ProcessUsage;
}

interface Totals {
  completed: number;
  cpuMs: number;
  seconds: number;
  /** Highest RSS sampled while the driver measured, over all rounds. */
  peakRssKiB: number;
  errors: number;
}

function which(command: string): boolean {
  return Bun.spawnSync(["sh", "-c", `command -v ${command}`]).exitCode === 0;
}

function microseconds(value: number | null): string {
  return value === null || !Number.isFinite(value) ? "-" : value.toFixed(0);
}

function times(value: number | null): string {
  return value === null || !Number.isFinite(value) ? "-" : `${value.toFixed(2)}x`;
}

function verdict(met: boolean): string {
  return met ? "met" : "NOT met";
}

export async function runCpuBoundBench(): Promise<void> {
  const durationMs = Number(process.env.BENCH_DURATION_MS ?? 4000);
  // Longer than the latency mode's: the gateway's JIT is still compiling after one second at full load.
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 2000);
  const repetitions = Math.max(1, Number(process.env.BENCH_REPETITIONS ?? 3));
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const streams = Number(process.env.BENCH_STREAMS ?? 1000);
  const serverCore = process.env.BENCH_SERVER_CORE ?? "0";
  const driverCore = process.env.BENCH_DRIVER_CORE ?? "1";
  if (!which("taskset")) throw new Error("the CPU-bound mode pins processes with taskset (util-linux), which is not installed");
  if (cpus().length < 2) throw new Error("the CPU-bound mode needs two cores: one for the server measured, one for the load");
  const serverPrefix = ["taskset", "-c", serverCore];
  const driverPrefix = ["taskset", "-c", driverCore];

  const allScenarios: Scenario[] = [
    { id: "plain-1", title: "non-streamed, 1 connection", stream: false, concurrency: 1 },
    { id: `plain-${connections}`, title: `non-streamed, ${connections} connections`, stream: false, concurrency: connections },
    { id: `stream-${connections}`, title: `streamed, ${connections} concurrent streams`, stream: true, concurrency: connections },
    { id: `stream-${streams}`, title: `streamed, ${streams} concurrent streams (memory)`, stream: true, concurrency: streams },
  ];
  const wanted = process.env.BENCH_SCENARIOS?.split(",").map((id) => id.trim());
  const scenarios = wanted ? allScenarios.filter((scenario) => wanted.includes(scenario.id)) : allScenarios;

  const started = performance.now();
  console.log("CPU-bound mode: starting the fake upstream (no delay), the bare proxy and the gateway, seeding through the CLI ...");
  const stack = await startStack({
    proxy: true,
    serverArgvPrefix: serverPrefix,
    upstreamArgvPrefix: driverPrefix,
    upstreamEnv: { BENCH_UPSTREAM_DELAY_MS: "0", BENCH_CHUNK_INTERVAL_MS: "0" },
  });
  const postgres = stack.storage === "postgres";
  const rulesOff =
    (process.env.BENCH_TOKEN_RULES_OFF ? `; token rules off: ${process.env.BENCH_TOKEN_RULES_OFF}` : "") +
    (process.env.BENCH_TRACING === "1" ? "; tracing on (OTLP sink)" : "") +
    (process.env.BENCH_CACHE ? `; response cache: ${process.env.BENCH_CACHE}` : "");
  const logOff = process.env.LOG_REQUESTS === "false" ? "; LOG_REQUESTS=false" : "";
  console.log(
    `gateway storage: ${stack.storage}; proxy and gateway on core ${serverCore}, driver and upstream on core ${driverCore} ` +
      `(load average now ${loadavg()[0]!.toFixed(1)})${rulesOff}${logOff}`,
  );
  console.log(`streams of ${process.env.BENCH_STREAM_CHUNKS ?? 20} chunks; ${warmupMs} ms warm-up + ${durationMs} ms per run, ${repetitions} rounds\n`);

  const runs = new Map<Scenario, Run[]>();
  try {
    // The gateway's JIT keeps compiling for several seconds of load (its JITWorker thread is still at ~20 us
    // per request after the first scenario's 2 s warm-up): both servers get this much of each kind of load
    // once, unmeasured, before the first scenario.
    const primeMs = Number(process.env.BENCH_PRIME_MS ?? 6000);
    if (primeMs > 0) {
      for (const service of [stack.proxy!, stack.gateway]) {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (service === stack.gateway) Object.assign(headers, gatewayHeaders(stack.key));
        for (const stream of [false, true]) {
          const config = { url: `${service.url}/chat/completions`, headers, body: chatBody(stream), concurrency: connections, warmupMs: 0, durationMs: primeMs / 2, stream };
          await drive(config, [], driverPrefix);
        }
      }
    }
    for (const scenario of scenarios) {
      const scenarioRuns: Run[] = [];
      runs.set(scenario, scenarioRuns);
      for (let repetition = 1; repetition <= repetitions; repetition++) {
        // Alternating the order cancels a drift of the machine's load over a scenario.
        const order: Target[] = repetition % 2 === 1 ? ["proxy", "gateway"] : ["gateway", "proxy"];
        for (const target of order) {
          const service = target === "proxy" ? stack.proxy! : stack.gateway;
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (target === "gateway") Object.assign(headers, gatewayHeaders(stack.key));
          const outcome = await drive(
            { url: `${service.url}/chat/completions`, headers, body: chatBody(scenario.stream), concurrency: scenario.concurrency, warmupMs, durationMs, stream: scenario.stream },
            [service.pid],
            driverPrefix,
          );
          scenarioRuns.push({ target, repetition, result: outcome.result, usage: outcome.usage.get(service.pid)! });
          if (outcome.result.errors > 0) {
            console.log(`  ${scenario.id} via ${target}: ${outcome.result.errors} errors, e.g. ${outcome.result.errorSamples.join("; ")}`);
          }
        }
      }
      printScenario(scenario, scenarioRuns);
    }
  } finally {
    await stack.stop();
  }
  printSummary(scenarios, runs, postgres, connections, streams);
  console.log(`\ntotal time ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

function totals(runs: Run[], target: Target): Totals {
  const mine = runs.filter((run) => run.target === target);
  return {
    completed: mine.reduce((sum, run) => sum + run.result.completed, 0),
    cpuMs: mine.reduce((sum, run) => sum + run.usage.cpuMs, 0),
    seconds: mine.reduce((sum, run) => sum + (run.result.requestsPerSecond > 0 ? run.result.completed / run.result.requestsPerSecond : 0), 0),
    peakRssKiB: Math.max(0, ...mine.map((run) => run.usage.measuredPeakRssKiB)),
    errors: mine.reduce((sum, run) => sum + run.result.errors, 0),
  };
}

/** CPU microseconds per request (per stream) over all rounds. */
function cpuPerRequest(total: Totals): number | null {
  return total.completed > 0 ? (total.cpuMs * 1000) / total.completed : null;
}

function requestsPerSecond(total: Totals): number | null {
  return total.seconds > 0 ? total.completed / total.seconds : null;
}

function printScenario(scenario: Scenario, runs: Run[]): void {
  const unit = scenario.stream ? "stream" : "req";
  const rows = runs.map((run) => [
    `${run.target} #${run.repetition}`,
    run.result.completed.toLocaleString(),
    Math.round(run.result.requestsPerSecond).toLocaleString(),
    run.usage.cpuMs.toFixed(0),
    microseconds(run.result.completed > 0 ? (run.usage.cpuMs * 1000) / run.result.completed : null),
    (run.usage.measuredPeakRssKiB / 1024).toFixed(0),
    String(run.result.errors),
  ]);
  console.log(`== ${scenario.title}`);
  console.log(formatTable(["run", scenario.stream ? "streams" : "requests", `${unit}/s`, "CPU ms", `CPU us/${unit}`, "RSS MB (max while measured)", "errors"], rows));
  const proxy = totals(runs, "proxy");
  const gateway = totals(runs, "gateway");
  const roundRatios = [...new Set(runs.map((run) => run.repetition))].map((repetition) => {
    const [p, g] = (["proxy", "gateway"] as const).map((target) => runs.find((run) => run.repetition === repetition && run.target === target)!);
    return p!.result.completed > 0 && g!.result.completed > 0
      ? (g!.usage.cpuMs / g!.result.completed) / (p!.usage.cpuMs / p!.result.completed)
      : Number.NaN;
  });
  console.log(
    `CPU/${unit}: proxy ${microseconds(cpuPerRequest(proxy))} us, gateway ${microseconds(cpuPerRequest(gateway))} us, ` +
      `ratio ${times(ratioOf(cpuPerRequest(gateway), cpuPerRequest(proxy)))} (rounds: ${roundRatios.map((value) => times(value)).join(", ")}); ` +
      `${unit}/s ratio ${times(ratioOf(requestsPerSecond(gateway), requestsPerSecond(proxy)))}`,
  );
  console.log(`CPU us/${unit} by thread: proxy: ${threadBreakdown(runs, "proxy")}; gateway: ${threadBreakdown(runs, "gateway")}\n`);
}

/** CPU per request of each thread (by name) of a target over all rounds: which thread the gap is on. */
function threadBreakdown(runs: Run[], target: Target): string {
  const mine = runs.filter((run) => run.target === target);
  const completed = mine.reduce((sum, run) => sum + run.result.completed, 0);
  const byName = new Map<string, number>();
  for (const run of mine) for (const [name, ms] of run.usage.threads) byName.set(name, (byName.get(name) ?? 0) + ms);
  return [...byName.entries()]
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${microseconds(completed > 0 ? (ms * 1000) / completed : null)}`)
    .join(", ");
}

function ratioOf(value: number | null, base: number | null): number | null {
  return value === null || base === null || base <= 0 ? null : value / base;
}

function printSummary(scenarios: Scenario[], runs: Map<Scenario, Run[]>, postgres: boolean, connections: number, streams: number): void {
  const rows: string[][] = [];
  const targets: string[] = [];
  const rssLimitMb = postgres ? 200 : 300;
  for (const scenario of scenarios) {
    const scenarioRuns = runs.get(scenario)!;
    const proxy = totals(scenarioRuns, "proxy");
    const gateway = totals(scenarioRuns, "gateway");
    const cpuRatio = ratioOf(cpuPerRequest(gateway), cpuPerRequest(proxy));
    const rateRatio = ratioOf(requestsPerSecond(gateway), requestsPerSecond(proxy));
    const rssMb = gateway.peakRssKiB / 1024;
    rows.push([
      scenario.id,
      microseconds(cpuPerRequest(proxy)),
      microseconds(cpuPerRequest(gateway)),
      times(cpuRatio),
      `${Math.round(requestsPerSecond(proxy) ?? 0)} / ${Math.round(requestsPerSecond(gateway) ?? 0)}`,
      times(rateRatio),
      rssMb.toFixed(0),
      String(proxy.errors + gateway.errors),
    ]);
    if (scenario.id === `plain-${connections}`) {
      targets.push(`CPU per request <= 1.3x the proxy's at ${connections} connections, non-streamed: ${times(cpuRatio)} ${verdict(cpuRatio !== null && cpuRatio <= 1.3)}`);
      targets.push(`req/s >= 0.75x the proxy's at ${connections} connections, non-streamed: ${times(rateRatio)} ${verdict(rateRatio !== null && rateRatio >= 0.75)}`);
    }
    if (scenario.id === `stream-${connections}`) {
      targets.push(`CPU per stream <= 1.5x the proxy's at ${connections} streams: ${times(cpuRatio)} ${verdict(cpuRatio !== null && cpuRatio <= 1.5)}`);
      targets.push(`streams/s >= 0.75x the proxy's at ${connections} streams: ${times(rateRatio)} ${verdict(rateRatio !== null && rateRatio >= 0.75)}`);
    }
    if (scenario.id === `stream-${streams}`) {
      targets.push(
        `gateway RSS (max while measured) <= ${rssLimitMb} MB at ${streams} concurrent streams (${postgres ? "Postgres" : "embedded"}): ${rssMb.toFixed(0)} MB ${verdict(rssMb <= rssLimitMb)}`,
      );
    }
  }
  console.log("== summary (CPU-bound; CPU of the whole server process per request or stream, all rounds)");
  console.log(formatTable(["scenario", "proxy CPU us", "gateway CPU us", "ratio", "req/s proxy / gateway", "req/s ratio", "gateway max RSS MB", "errors"], rows));
  if (targets.length > 0) console.log(`\ntargets (issue 15):\n  ${targets.join("\n  ")}`);
}
