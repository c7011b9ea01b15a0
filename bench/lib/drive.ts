import { join } from "node:path";
import type { DriverConfig, DriverResult } from "../load-driver";
import { type ProcessSample, sampleProcess } from "./processes";
import { benchEnv, root } from "./stack";

export interface ProcessUsage {
  /** CPU time the process spent while the driver measured (from the end of its warm-up to its exit). */
  cpuMs: number;
  rssKiB: number;
  peakRssKiB: number;
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
      if (message.phase === "measure") before = new Map(watchedPids.map((pid) => [pid, sampleProcess(pid)]));
      else result = message;
    }
  }
  const code = await child.exited;
  if (code !== 0 || result === null) throw new Error(`load driver failed (exit ${code})`);
  const usage = new Map<number, ProcessUsage>();
  for (const pid of watchedPids) {
    const after = sampleProcess(pid);
    const start = before.get(pid) ?? after;
    usage.set(pid, { cpuMs: after.cpuMs - start.cpuMs, rssKiB: after.rssKiB, peakRssKiB: after.peakRssKiB });
  }
  return { result, usage };
}
