// `bun run bench`: the gateway's added latency, throughput, CPU and memory against a direct call to the
// upstream and a bare Bun proxy, each server in its own process on loopback. Prints figures; not a test.
//
// Environment (all optional):
//   BENCH_DURATION_MS (4000) / BENCH_WARMUP_MS (1000)   measured time and warm-up of each run
//   BENCH_CONNECTIONS (32), BENCH_STREAMS (1000)       concurrency of the "many" scenarios
//   BENCH_SCENARIOS                                    comma-separated subset of the scenario ids below
//   BENCH_UPSTREAM_DELAY_MS (20), BENCH_STREAM_CHUNKS (20), BENCH_CHUNK_INTERVAL_MS (10): the fake upstream
//   BENCH_MAX_HTTP_REQUESTS (4096)                     BUN_CONFIG_MAX_HTTP_REQUESTS of every process
//   BENCH_GATEWAY_REDIS_URL                            passed to the gateway as REDIS_URL
//   BENCH_GATEWAY_BUN_FLAGS                            extra flags of the gateway's bun, e.g. "--smol"
//   BENCH_DATABASE_URL                                 a Postgres server: the gateway runs on a fresh database
//                                                      there instead of embedded PGlite
//   BENCH_TOKEN_RULES_OFF                              e.g. "ip,rpm": the bench token without those limits
//   BENCH_TRACING=1                                    the gateway exports OpenTelemetry spans to an OTLP sink process
//   BENCH_CACHE=hit | refresh                          the bench token caches answers: every call a hit, or a miss that stores
//   BENCH_MODE=cpu (or `--cpu`)                        the CPU-bound mode (bench/lib/cpu-bound.ts): upstream with
//                                                      no delay, servers pinned to a core, CPU per request vs
//                                                      the proxy over BENCH_REPETITIONS (3) interleaved rounds
import { cpus, loadavg } from "node:os";
import type { DriverResult } from "./load-driver";
import { drive, type ProcessUsage } from "./lib/drive";
import { formatMs, formatTable } from "./lib/format";
import { runCpuBoundBench } from "./lib/cpu-bound";
import { chatBody, gatewayHeaders, startStack } from "./lib/stack";

if (process.env.BENCH_MODE === "cpu" || process.argv.includes("--cpu")) {
  await runCpuBoundBench();
  process.exit(0);
}

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 4000);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const streams = Number(process.env.BENCH_STREAMS ?? 1000);

interface Scenario {
  id: string;
  title: string;
  stream: boolean;
  concurrency: number;
}

const allScenarios: Scenario[] = [
  { id: "plain-1", title: "non-streamed, 1 connection", stream: false, concurrency: 1 },
  { id: `plain-${connections}`, title: `non-streamed, ${connections} connections`, stream: false, concurrency: connections },
  { id: `stream-${connections}`, title: `streamed, ${connections} concurrent streams`, stream: true, concurrency: connections },
  { id: `stream-${streams}`, title: `streamed, ${streams} concurrent streams`, stream: true, concurrency: streams },
];
const wanted = process.env.BENCH_SCENARIOS?.split(",").map((id) => id.trim());
const scenarios = wanted ? allScenarios.filter((scenario) => wanted.includes(scenario.id)) : allScenarios;

type Target = "direct" | "proxy" | "gateway";

interface Measurement {
  scenario: Scenario;
  target: Target;
  result: DriverResult;
  server: ProcessUsage | null;
}

const started = performance.now();
console.log("starting the fake upstream, the bare proxy and the gateway, seeding through the CLI ...");
const stack = await startStack({ proxy: true });
console.log(`gateway storage: ${stack.storage}; ${cpus().length} CPUs, shared by every process of the bench (load average now ${loadavg()[0]!.toFixed(1)})`);
const upstreamSettings = `upstream delay ${process.env.BENCH_UPSTREAM_DELAY_MS ?? 20} ms; streams of ${process.env.BENCH_STREAM_CHUNKS ?? 20} chunks every ${process.env.BENCH_CHUNK_INTERVAL_MS ?? 10} ms`;
console.log(`${upstreamSettings}; ${warmupMs} ms warm-up + ${durationMs} ms per run\n`);

const measurements: Measurement[] = [];
try {
  for (const scenario of scenarios) {
    const targets: Array<{ target: Target; url: string; headers: Record<string, string>; pid: number | null }> = [
      { target: "direct", url: `${stack.upstream.url}/chat/completions`, headers: { authorization: "Bearer sk-bench-upstream" }, pid: null },
      { target: "proxy", url: `${stack.proxy!.url}/chat/completions`, headers: {}, pid: stack.proxy!.pid },
      { target: "gateway", url: `${stack.gateway.url}/chat/completions`, headers: gatewayHeaders(stack.key), pid: stack.gateway.pid },
    ];
    for (const target of targets) {
      const outcome = await drive(
        {
          url: target.url,
          headers: { "content-type": "application/json", ...target.headers },
          body: chatBody(scenario.stream),
          concurrency: scenario.concurrency,
          warmupMs,
          durationMs,
          stream: scenario.stream,
        },
        target.pid === null ? [] : [target.pid],
      );
      const measurement = { scenario, target: target.target, result: outcome.result, server: target.pid === null ? null : outcome.usage.get(target.pid)! };
      measurements.push(measurement);
      if (outcome.result.errors > 0) {
        console.log(`  ${scenario.id} via ${target.target}: ${outcome.result.errors} errors, e.g. ${outcome.result.errorSamples.join("; ")}`);
      }
    }
    printScenario(scenario);
  }
} finally {
  await stack.stop();
}
printSummary();
console.log(`\ntotal time ${((performance.now() - started) / 1000).toFixed(0)} s`);

function find(scenario: Scenario, target: Target): Measurement {
  return measurements.find((measurement) => measurement.scenario === scenario && measurement.target === target)!;
}

function cpuPerRequest(measurement: Measurement): number | null {
  if (!measurement.server || measurement.result.completed === 0) return null;
  return measurement.server.cpuMs / measurement.result.completed;
}

function ratio(value: number | null, base: number | null): string {
  if (value === null || base === null || base <= 0) return "-";
  return `${(value / base).toFixed(2)}x`;
}

function printScenario(scenario: Scenario): void {
  const direct = find(scenario, "direct");
  const rows = (["direct", "proxy", "gateway"] as const).map((target) => {
    const measurement = find(scenario, target);
    const { result, server } = measurement;
    const addedP50 = target === "direct" ? null : result.latencyMs.p50 - direct.result.latencyMs.p50;
    const addedP99 = target === "direct" ? null : result.latencyMs.p99 - direct.result.latencyMs.p99;
    return [
      target,
      formatMs(result.latencyMs.p50),
      formatMs(result.latencyMs.p99),
      result.totalMs ? formatMs(result.totalMs.p50) : "",
      Math.round(result.requestsPerSecond).toLocaleString(),
      formatMs(addedP50),
      formatMs(addedP99),
      formatMs(cpuPerRequest(measurement)),
      server ? (server.rssKiB / 1024).toFixed(0) : "-",
      String(result.errors),
    ];
  });
  const what = scenario.stream ? "latency = time to first chunk; 'whole' = to the end of the stream" : "latency = whole answer";
  console.log(`== ${scenario.title} (${what}), ms`);
  console.log(
    formatTable(["target", "p50", "p99", scenario.stream ? "whole p50" : "", "req/s", "added p50", "added p99", "CPU ms/req", "RSS MB", "errors"], rows),
  );
  const proxy = find(scenario, "proxy");
  const gateway = find(scenario, "gateway");
  const addedProxyP50 = proxy.result.latencyMs.p50 - direct.result.latencyMs.p50;
  const addedGatewayP50 = gateway.result.latencyMs.p50 - direct.result.latencyMs.p50;
  const addedProxyP99 = proxy.result.latencyMs.p99 - direct.result.latencyMs.p99;
  const addedGatewayP99 = gateway.result.latencyMs.p99 - direct.result.latencyMs.p99;
  console.log(
    `gateway/proxy: added p50 ${ratio(addedGatewayP50, addedProxyP50)}, added p99 ${ratio(addedGatewayP99, addedProxyP99)}, ` +
      `CPU per request ${ratio(cpuPerRequest(gateway), cpuPerRequest(proxy))}, req/s ${ratio(gateway.result.requestsPerSecond, proxy.result.requestsPerSecond)}; ` +
      `gateway peak RSS so far ${((gateway.server?.peakRssKiB ?? 0) / 1024).toFixed(0)} MB\n`,
  );
}

function printSummary(): void {
  const rows = scenarios.map((scenario) => {
    const direct = find(scenario, "direct").result;
    const proxy = find(scenario, "proxy");
    const gateway = find(scenario, "gateway");
    return [
      scenario.id,
      formatMs(direct.latencyMs.p50),
      `${formatMs(proxy.result.latencyMs.p50 - direct.latencyMs.p50)} / ${formatMs(proxy.result.latencyMs.p99 - direct.latencyMs.p99)}`,
      `${formatMs(gateway.result.latencyMs.p50 - direct.latencyMs.p50)} / ${formatMs(gateway.result.latencyMs.p99 - direct.latencyMs.p99)}`,
      `${Math.round(proxy.result.requestsPerSecond)} / ${Math.round(gateway.result.requestsPerSecond)}`,
      `${formatMs(cpuPerRequest(proxy))} / ${formatMs(cpuPerRequest(gateway))}`,
      ((gateway.server?.rssKiB ?? 0) / 1024).toFixed(0),
    ];
  });
  console.log("== summary (added = over direct; streams: time to first chunk), ms");
  console.log(formatTable(["scenario", "direct p50", "proxy added p50/p99", "gateway added p50/p99", "req/s proxy/gateway", "CPU ms/req proxy/gateway", "gateway RSS MB"], rows));
}
