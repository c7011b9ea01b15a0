import { describeUnexpectedError, purgeAuditLog } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { Logger } from "@tollgate/gateway/logger";

const HOUR_MS = 3_600_000;

/**
 * Deletes audit rows past the retention setting once an hour (and once at start), off the request path.
 * Every console-serving instance runs it: the purge is idempotent and serialised on the chain's lock.
 */
export function startAuditPurge(input: { db: Database; log: Logger; intervalMs?: number; now?: () => Date }): { stop(): void } {
  // One run at a time: a purge slower than the interval is not stacked behind itself (each run is a
  // transaction, and on embedded PGlite queued transactions would starve every other statement).
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      const { deleted } = await purgeAuditLog(input.db, input.now?.() ?? new Date());
      if (deleted > 0) input.log("info", "audit log purged past its retention", { deleted });
    } catch (error) {
      input.log("warn", "audit log purge failed", { error: describeUnexpectedError(error) });
    } finally {
      running = false;
    }
  };
  void run();
  const timer = setInterval(run, input.intervalMs ?? HOUR_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
