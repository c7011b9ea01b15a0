// Where the gateway's memory goes at 1,000 concurrent streams (issue 15's RSS target), in one focused run:
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/memory.ts
// Starts the fake upstream and the real gateway (through bench/gateway-memory-entry.ts, which samples the
// JavaScript heap from inside), seeds it with every rule on, as the other benches do, then:
//   at rest -> BENCH_PRIME_MS (6000) of the CPU-bound mode's priming (32 connections, half non-streamed,
//   half streamed) -> BENCH_STREAMS (1000) concurrent streams for BENCH_DURATION_MS (8000)
// and prints RSS (/proc/<pid>/status VmRSS; anonymous vs file-backed from smaps_rollup) over time, the JS
// heap, and the object counts by type at the peak and after a full collection at the end.
// The upstream answers at once by default (as in BENCH_MODE=cpu); BENCH_CHUNK_INTERVAL_MS=100 keeps every
// stream open for 2 s (20 chunks) instead. BENCH_MEMORY_TARGET=proxy drives and samples the bare Bun proxy
// (bench/bare-proxy.ts) instead, for comparison: what Bun itself holds for the same load (no heap figures).
// Figures only; never a test.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drive } from "./lib/drive";
import { formatTable } from "./lib/format";
import { chatBody, root, startStack } from "./lib/stack";

interface HeapLine {
  kind: string;
  at: number;
  rss: number;
  heapSize: number;
  heapCapacity: number;
  extraMemorySize: number;
  objectCount: number;
  external: number;
  arrayBuffers: number;
  objectTypeCounts?: Record<string, number>;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

function rollup(pid: number): Record<string, number> {
  const figures: Record<string, number> = {};
  for (const file of [`/proc/${pid}/status`, `/proc/${pid}/smaps_rollup`]) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const match = /^(\w+):\s+(\d+) kB/.exec(line);
      if (match) figures[`${file.endsWith("status") ? "" : "smaps."}${match[1]}`] = Number(match[2]) * 1024;
    }
  }
  return figures;
}

const streams = Number(process.env.BENCH_STREAMS ?? 1000);
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 8000);
const primeMs = Number(process.env.BENCH_PRIME_MS ?? 6000);
const chunkIntervalMs = process.env.BENCH_CHUNK_INTERVAL_MS ?? "0";
const reportPath = join(tmpdir(), `tollgate-memory-${process.pid}.jsonl`);

const onProxy = process.env.BENCH_MEMORY_TARGET === "proxy";
const stack = await startStack({
  proxy: onProxy,
  gatewayEntry: join(root, "bench/gateway-memory-entry.ts"),
  gatewayEnv: { BENCH_MEMORY_REPORT: reportPath, BENCH_MEMORY_SAMPLE_MS: "250" },
  upstreamEnv: { BENCH_UPSTREAM_DELAY_MS: "0", BENCH_CHUNK_INTERVAL_MS: chunkIntervalMs },
});
const target = onProxy ? stack.proxy! : stack.gateway;
const pid = target.pid;
const timeline: { phase: string; at: number; figures: Record<string, number> }[] = [];
let phase = "rest";
const startedAt = Date.now();
const sampler = setInterval(() => timeline.push({ phase, at: Date.now() - startedAt, figures: rollup(pid) }), 100);
const headers: Record<string, string> = { "content-type": "application/json" };
if (!onProxy) headers.authorization = `Bearer ${stack.key}`;
const url = `${target.url}/chat/completions`;
let result;
try {
  console.log(`${onProxy ? "bare proxy (gateway idle)" : "gateway"}; storage: ${stack.storage}; upstream chunk interval ${chunkIntervalMs} ms; ${streams} streams for ${durationMs} ms`);
  await Bun.sleep(1500);
  if (primeMs > 0) {
    phase = "prime";
    for (const stream of [false, true]) {
      await drive({ url, headers, body: chatBody(stream), concurrency: 32, warmupMs: 0, durationMs: primeMs / 2, stream }, []);
    }
  }
  phase = "streams";
  const detailAt = setTimeout(() => onProxy || process.kill(pid, "SIGUSR2"), durationMs * 0.75);
  result = (await drive({ url, headers, body: chatBody(true), concurrency: streams, warmupMs: 0, durationMs, stream: true }, [])).result;
  clearTimeout(detailAt);
  phase = "after";
  await Bun.sleep(1500);
  // A full collection, then the object counts: what the heap still holds once the streams are gone.
  if (!onProxy) stack.gateway.process.kill("SIGUSR2");
} finally {
  await Bun.sleep(300);
  clearInterval(sampler);
  await stack.stop();
}

const heapLines = (!onProxy && existsSync(reportPath) ? readFileSync(reportPath, "utf8").trim().split("\n") : [])
  .filter(Boolean)
  .map((line) => JSON.parse(line) as HeapLine);
rmSync(reportPath, { force: true });
console.log(`streams completed: ${result!.completed}, errors: ${result!.errors}${result!.errors ? ` (${result!.errorSamples.join("; ")})` : ""}`);

function peakOf(name: string, phaseName: string): number {
  return Math.max(0, ...timeline.filter((entry) => entry.phase === phaseName).map((entry) => entry.figures[name] ?? 0));
}
const phases = ["rest", "prime", "streams", "after"];
console.log("\n== RSS by phase (MB, max of 100 ms samples)");
console.log(
  formatTable(
    ["phase", "VmRSS", "RssAnon", "RssFile", "VmHWM"],
    phases.map((name) => [name, mb(peakOf("VmRSS", name)), mb(peakOf("RssAnon", name)), mb(peakOf("RssFile", name)), mb(peakOf("VmHWM", name))]),
  ),
);

const heapTicks = heapLines.filter((line) => line.kind === "tick");
const phaseOfTime = (at: number) => {
  const relative = at - startedAt;
  let current = "rest";
  for (const entry of timeline) if (entry.at <= relative) current = entry.phase;
  return current;
};
if (heapTicks.length > 0) {
  console.log("\n== JS heap by phase (MB, max of 250 ms samples from inside the gateway)");
  console.log(
    formatTable(
      ["phase", "rss", "heapSize", "heapCapacity", "extraMemory", "external", "arrayBuffers", "objects (k)"],
      phases.map((name) => {
        const mine = heapTicks.filter((line) => phaseOfTime(line.at) === name);
        const max = (key: keyof HeapLine) => Math.max(0, ...mine.map((line) => Number(line[key])));
        return [name, mb(max("rss")), mb(max("heapSize")), mb(max("heapCapacity")), mb(max("extraMemorySize")), mb(max("external")), mb(max("arrayBuffers")), (max("objectCount") / 1000).toFixed(0)];
      }),
    ),
  );
}

for (const detail of heapLines.filter((line) => line.objectTypeCounts)) {
  console.log(`\n== ${detail.kind} (${phaseOfTime(detail.at)}): rss ${mb(detail.rss)} MB, heap ${mb(detail.heapSize)} MB, ${detail.objectCount} objects; top types:`);
  console.log(Object.entries(detail.objectTypeCounts!).slice(0, 25).map(([type, count]) => `${type} ${count}`).join(", "));
}

console.log("\n== RSS timeline (MB, max per second)");
const perSecond = new Map<number, { phase: string; rss: number }>();
for (const entry of timeline) {
  const second = Math.floor(entry.at / 1000);
  const current = perSecond.get(second);
  const rss = entry.figures.VmRSS ?? 0;
  if (!current || rss > current.rss) perSecond.set(second, { phase: entry.phase, rss });
}
console.log([...perSecond.entries()].map(([second, value]) => `${second}s ${value.phase} ${mb(value.rss)}`).join(" | "));
