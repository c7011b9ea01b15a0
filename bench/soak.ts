// Soak: steady non-streamed and streamed load on the gateway for a long time, printing its memory every
// 30 s, to see whether RSS levels off. A script to run by hand, never in CI: bun bench/soak.ts
//   BENCH_SOAK_MS (600000 = 10 min), BENCH_SOAK_REPORT_MS (30000),
//   BENCH_SOAK_CONNECTIONS (16 non-streamed), BENCH_SOAK_STREAMS (64 streamed)
import type { DriverConfig } from "./load-driver";
import { drive } from "./lib/drive";
import { formatTable } from "./lib/format";
import { sampleProcess } from "./lib/processes";
import { chatBody, startStack } from "./lib/stack";

const soakMs = Number(process.env.BENCH_SOAK_MS ?? 600_000);
const reportMs = Number(process.env.BENCH_SOAK_REPORT_MS ?? 30_000);
const connections = Number(process.env.BENCH_SOAK_CONNECTIONS ?? 16);
const streams = Number(process.env.BENCH_SOAK_STREAMS ?? 64);

const stack = await startStack();
const gatewayPid = stack.gateway.pid;
const base = (stream: boolean, concurrency: number): DriverConfig => ({
  url: `${stack.gateway.url}/chat/completions`,
  headers: { "content-type": "application/json", authorization: `Bearer ${stack.key}` },
  body: chatBody(stream),
  concurrency,
  warmupMs: 0,
  durationMs: soakMs,
  stream,
});

console.log(`soak: ${connections} non-streamed connections + ${streams} streams for ${(soakMs / 60_000).toFixed(1)} min; gateway pid ${gatewayPid}`);
const started = performance.now();
const rows: string[][] = [];
let previous = sampleProcess(gatewayPid);
let previousAt = started;
const report = () => {
  const now = performance.now();
  const sample = sampleProcess(gatewayPid);
  const cpuPercent = ((sample.cpuMs - previous.cpuMs) / (now - previousAt)) * 100;
  const row = [((now - started) / 1000).toFixed(0), (sample.rssKiB / 1024).toFixed(1), (sample.peakRssKiB / 1024).toFixed(1), cpuPercent.toFixed(0)];
  rows.push(row);
  console.log(`t=${row[0]}s  RSS ${row[1]} MB  peak ${row[2]} MB  CPU ${row[3]}%`);
  previous = sample;
  previousAt = now;
};
report();
const timer = setInterval(report, reportMs);
try {
  const [plain, streamed] = await Promise.all([drive(base(false, connections), []), drive(base(true, streams), [])]);
  clearInterval(timer);
  report();
  console.log("\n" + formatTable(["t s", "RSS MB", "peak MB", "CPU %"], rows));
  for (const [name, outcome] of [["non-streamed", plain], ["streamed", streamed]] as const) {
    const { result } = outcome;
    console.log(
      `${name}: ${result.completed} requests, ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.latencyMs.p50.toFixed(1)} ms, ` +
        `p99 ${result.latencyMs.p99.toFixed(1)} ms, ${result.errors} errors${result.errors ? ` (${result.errorSamples.join("; ")})` : ""}`,
    );
  }
  // After the first third (warm-up, caches, JIT), a leak shows as a steady slope.
  const settled = rows.slice(Math.floor(rows.length / 3));
  if (settled.length >= 2) {
    const first = settled[0]!;
    const last = settled.at(-1)!;
    const minutes = (Number(last[0]) - Number(first[0])) / 60;
    const slope = (Number(last[1]) - Number(first[1])) / Math.max(minutes, 1e-9);
    console.log(`RSS slope after warm-up: ${slope >= 0 ? "+" : ""}${slope.toFixed(1)} MB/min (${first[1]} -> ${last[1]} MB)`);
  }
  // Every request the driver sent was answered (or failed) by the gateway, and each leaves one log row.
  const sent = plain.result.completed + plain.result.errors + streamed.result.completed + streamed.result.errors;
  const logged = await stack.stopGatewayAndCountLogs();
  console.log(`accounting: ${sent} requests sent, ${logged} request-log rows written after SIGTERM${logged === sent ? "" : ` (MISMATCH: ${logged - sent})`}`);
} finally {
  clearInterval(timer);
  await stack.stop();
}
