// Load driver, run as its own process: a fixed number of workers, each sending its next request as soon as
// the previous one has been read to the end, for a warm-up and then a measured period. Reads its
// configuration as JSON from BENCH_DRIVER_CONFIG; prints {"phase":"measure"} when the warm-up ends and
// its result as one JSON line at the end.
import { percentile } from "./lib/stats";

export interface DriverConfig {
  url: string;
  headers: Record<string, string>;
  body: string;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  stream: boolean;
}

export interface DriverResult {
  completed: number;
  errors: number;
  errorSamples: string[];
  /** Non-streamed: the whole answer. Streamed: the first chunk of the body. */
  latencyMs: { p50: number; p99: number; mean: number };
  /** Streamed only: until the end of the stream. */
  totalMs: { p50: number; p99: number } | null;
  requestsPerSecond: number;
}

const config = JSON.parse(process.env.BENCH_DRIVER_CONFIG ?? "null") as DriverConfig | null;
if (!config) throw new Error("BENCH_DRIVER_CONFIG is required");

const latencies: number[] = [];
const totals: number[] = [];
const errorSamples: string[] = [];
let errors = 0;
const startedAt = performance.now();
const measureFrom = startedAt + config.warmupMs;
const stopAt = measureFrom + config.durationMs;
let lastMeasuredEnd = measureFrom;
// Tells the parent when measuring starts, so that it samples the servers' CPU time from then on.
setTimeout(() => console.log(JSON.stringify({ phase: "measure" })), config.warmupMs);

function fail(reason: string, measured: boolean): void {
  if (!measured) return;
  errors++;
  if (errorSamples.length < 5 && !errorSamples.includes(reason)) errorSamples.push(reason);
}

async function once(): Promise<void> {
  const begin = performance.now();
  const measured = begin >= measureFrom;
  let response: Response;
  try {
    response = await fetch(config!.url, { method: "POST", headers: config!.headers, body: config!.body });
  } catch (error) {
    fail(`fetch: ${String(error)}`, measured);
    return;
  }
  let firstChunkAt: number | null = null;
  try {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (firstChunkAt === null && value.byteLength > 0) firstChunkAt = performance.now();
    }
  } catch (error) {
    fail(`body: ${String(error)}`, measured);
    return;
  }
  const end = performance.now();
  if (!measured) return;
  if (response.status !== 200) {
    fail(`status ${response.status}`, true);
    return;
  }
  latencies.push((config!.stream ? (firstChunkAt ?? end) : end) - begin);
  if (config!.stream) totals.push(end - begin);
  if (end > lastMeasuredEnd) lastMeasuredEnd = end;
}

await Promise.all(
  Array.from({ length: config.concurrency }, async () => {
    while (performance.now() < stopAt) await once();
  }),
);

const sortedLatencies = Float64Array.from(latencies).sort();
const sortedTotals = Float64Array.from(totals).sort();
const measuredSeconds = (lastMeasuredEnd - measureFrom) / 1000;
const result: DriverResult = {
  completed: latencies.length,
  errors,
  errorSamples,
  latencyMs: {
    p50: percentile(sortedLatencies, 0.5),
    p99: percentile(sortedLatencies, 0.99),
    mean: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
  },
  totalMs: config.stream ? { p50: percentile(sortedTotals, 0.5), p99: percentile(sortedTotals, 0.99) } : null,
  requestsPerSecond: measuredSeconds > 0 ? latencies.length / measuredSeconds : 0,
};
console.log(JSON.stringify(result));
