import { describeUnexpectedError, purgeAuditLog } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { Logger } from "@tollgate/gateway/logger";
import { type RunningJobs, startJobs } from "@tollgate/gateway/services/jobs";

const HOUR_MS = 3_600_000;

/**
 * Deletes audit rows past the retention setting once an hour (and once at start), off the request path, on
 * the gateway's job runner (one pass at a time). Every console-serving instance runs it: the purge is
 * idempotent and serialised on the chain's lock.
 */
export function startAuditPurge(input: { db: Database; log: Logger; intervalMs?: number; now?: () => Date }): RunningJobs {
  const run = async () => {
    try {
      const { deleted } = await purgeAuditLog(input.db, input.now?.() ?? new Date());
      if (deleted > 0) input.log("info", "audit log purged past its retention", { deleted });
    } catch (error) {
      input.log("warn", "audit log purge failed", { error: describeUnexpectedError(error) });
    }
  };
  return startJobs([{ name: "audit-purge", intervalMs: input.intervalMs ?? HOUR_MS, runAtStart: true, run }], input.log);
}
