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
  /**
   * Clears every timer; resolves once the passes already running have settled (at most `graceMs`), so that
   * what they use (the database) is closed after them, never under them.
   */
  stop(graceMs?: number): Promise<void>;
}

/** How long stop() waits for passes still running. */
const STOP_GRACE_MS = 10_000;

/** Starts each job on a timer of its own that never keeps the process alive. */
export function startJobs(jobs: readonly Job[], log: Logger): RunningJobs {
  // A pass slower than its interval is not started again until it settles: passes stacked behind each other
  // would queue their statements without bound (on embedded PGlite, ahead of every request's).
  const inFlight = new Map<Job, Promise<void>>();
  const runSafely = (job: Job) => {
    if (inFlight.has(job)) return;
    try {
      const result = job.run();
      if (result instanceof Promise) {
        inFlight.set(
          job,
          result
            .then(
              () => {},
              (error: unknown) => log("warn", "background job failed", { job: job.name, error: String(error) }),
            )
            .finally(() => inFlight.delete(job)),
        );
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
    async stop(graceMs = STOP_GRACE_MS) {
      for (const timer of timers) clearInterval(timer);
      timers.clear();
      if (inFlight.size === 0) return;
      let timeout: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => (timeout = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(inFlight.values()), late]);
      clearTimeout(timeout);
      if (inFlight.size > 0) log("warn", "background jobs still running at stop", { jobs: [...inFlight.keys()].map((job) => job.name) });
    },
  };
}
