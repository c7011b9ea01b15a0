import { join } from "node:path";
import type { DriverConfig, DriverResult } from "../load-driver";
import { type ProcessSample, sampleProcess, sampleThreads } from "./processes";
import { benchEnv, root } from "./stack";

export interface ProcessUsage {
  /** CPU time the process spent while the driver measured (from the end of its warm-up to its exit). */
  cpuMs: number;
  rssKiB: number;
  peakRssKiB: number;
  /** Highest RSS seen while the driver measured (sampled every 100 ms), unlike peakRssKiB (the process's life). */
  measuredPeakRssKiB: number;
  /** CPU ms over the measurement by thread name (threads that ended in between are not counted). */
  threads: Map<string, number>;
}

export interface DriveOutcome {
  result: DriverResult;
  /** By pid of each watched process. */
  usage: Map<number, ProcessUsage>;
}

/**
 * Runs the load driver in its own process and samples the watched processes' CPU time around its measurement.
 * `argvPrefix` wraps the driver's command, e.g. ["taskset", "-c", "1"] to pin it to a core.
 */
export async function drive(config: DriverConfig, watchedPids: number[], argvPrefix: string[] = []): Promise<DriveOutcome> {
  const child = Bun.spawn([...argvPrefix, process.execPath, join(root, "bench/load-driver.ts")], {
    env: benchEnv({ BENCH_DRIVER_CONFIG: JSON.stringify(config) }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  let before = new Map<number, ProcessSample>();
  let threadsBefore = new Map<number, Map<string, number>>();
  const measuredPeak = new Map<number, number>();
  let rssSampler: ReturnType<typeof setInterval> | undefined;
  const sampleRss = () => {
    for (const pid of watchedPids) measuredPeak.set(pid, Math.max(measuredPeak.get(pid) ?? 0, sampleProcess(pid).rssKiB));
  };
  let output = "";
  let result: DriverResult | null = null;
  const decoder = new TextDecoder();
  const reader = child.stdout.getReader();
  for (;;) {
    const { done, value: chunk } = await reader.read();
    if (done) break;
    output += decoder.decode(chunk);
    let newline = output.indexOf("\n");
    while (newline !== -1) {
      const line = output.slice(0, newline);
      output = output.slice(newline + 1);
      newline = output.indexOf("\n");
      const message = JSON.parse(line) as { phase?: string } & DriverResult;
      if (message.phase === "measure") {
        before = new Map(watchedPids.map((pid) => [pid, sampleProcess(pid)]));
        threadsBefore = new Map(watchedPids.map((pid) => [pid, sampleThreads(pid)]));
        sampleRss();
        rssSampler = setInterval(sampleRss, 100);
      }
      else result = message;
    }
  }
  clearInterval(rssSampler);
  const code = await child.exited;
  if (code !== 0 || result === null) throw new Error(`load driver failed (exit ${code})`);
  const usage = new Map<number, ProcessUsage>();
  for (const pid of watchedPids) {
    const after = sampleProcess(pid);
    const start = before.get(pid) ?? after;
    const threads = new Map<string, number>();
    const threadsStart = threadsBefore.get(pid) ?? new Map<string, number>();
    for (const [name, ms] of sampleThreads(pid)) threads.set(name, ms - (threadsStart.get(name) ?? 0));
    const measuredPeakRssKiB = Math.max(measuredPeak.get(pid) ?? 0, after.rssKiB);
    usage.set(pid, { cpuMs: after.cpuMs - start.cpuMs, rssKiB: after.rssKiB, peakRssKiB: after.peakRssKiB, measuredPeakRssKiB, threads });
  }
  return { result, usage };
}
