import type { Logger } from "../logger";

/**
 * Periodic background work of the gateway (cache revalidation, purges, pruning, lease renewal, alert
 * delivery, the listener's self-check). Every one is a row of one list, started and stopped in one place, so
 * that a shutdown cannot leave a forgotten timer behind.
 */
export interface Job {
  /** Named in the log line of a run that failed. */
  name: string;
  intervalMs: number;
  /** One pass; a rejection or a throw is logged and the next pass runs on time. */
  run(): unknown;
  /** Also runs once as the jobs start, not only after the first interval. */
  runAtStart?: boolean;
}

export interface RunningJobs {
  /** Jobs whose timer is still set (0 once stopped). */
  readonly active: number;
  /** Clears every timer; a pass already running finishes on its own (its owner's stop waits for it). */
  stop(): void;
}

/** Starts each job on a timer of its own that never keeps the process alive. */
export function startJobs(jobs: readonly Job[], log: Logger): RunningJobs {
  // A pass slower than its interval is not started again until it settles: passes stacked behind each other
  // would queue their statements without bound (on embedded PGlite, ahead of every request's).
  const inFlight = new Set<Job>();
  const runSafely = (job: Job) => {
    if (inFlight.has(job)) return;
    try {
      const result = job.run();
      if (result instanceof Promise) {
        inFlight.add(job);
        result
          .catch((error) => log("warn", "background job failed", { job: job.name, error: String(error) }))
          .finally(() => inFlight.delete(job));
      }
    } catch (error) {
      log("warn", "background job failed", { job: job.name, error: String(error) });
    }
  };
  const timers = new Set<ReturnType<typeof setInterval>>();
  for (const job of jobs) {
    const timer = setInterval(() => runSafely(job), job.intervalMs);
    timer.unref?.();
    timers.add(timer);
    if (job.runAtStart) runSafely(job);
  }
  return {
    get active() {
      return timers.size;
    },
    stop() {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
    },
  };
}
