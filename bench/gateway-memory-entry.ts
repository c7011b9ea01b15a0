// Bench-only entry of the gateway for bench/memory.ts: the real server (apps/server/src/index.ts, imported
// unchanged), plus a sampler that appends its heap figures as JSON lines to BENCH_MEMORY_REPORT every
// BENCH_MEMORY_SAMPLE_MS (500). On SIGUSR2 it writes two detailed lines with the object counts by type of
// `bun:jsc` heapStats(): one as the heap is, one after a full collection (Bun.gc(true)): live vs garbage.
// Nothing here is in the production entry: the gateway itself has no memory endpoint.
import { appendFileSync } from "node:fs";
import { heapStats } from "bun:jsc";

const reportPath = process.env.BENCH_MEMORY_REPORT;
if (!reportPath) throw new Error("BENCH_MEMORY_REPORT (a file to append samples to) is required");
const sampleMs = Number(process.env.BENCH_MEMORY_SAMPLE_MS ?? 500);

function sample(kind: string, detailed: boolean): void {
  const usage = process.memoryUsage();
  const stats = heapStats();
  const line: Record<string, unknown> = {
    kind,
    at: Date.now(),
    rss: usage.rss,
    heapSize: stats.heapSize,
    heapCapacity: stats.heapCapacity,
    extraMemorySize: stats.extraMemorySize,
    objectCount: stats.objectCount,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
  };
  if (detailed) {
    line.objectTypeCounts = Object.fromEntries(
      Object.entries(stats.objectTypeCounts).sort((a, b) => b[1] - a[1]).slice(0, 40),
    );
    line.protectedObjectTypeCounts = stats.protectedObjectTypeCounts;
  }
  appendFileSync(reportPath!, `${JSON.stringify(line)}\n`);
}

setInterval(() => sample("tick", false), sampleMs).unref();
process.on("SIGUSR2", () => {
  sample("detail", true);
  Bun.gc(true);
  sample("detail-after-gc", true);
});

await import("../apps/server/src/index.ts");
