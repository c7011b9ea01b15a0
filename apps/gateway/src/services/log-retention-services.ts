import { type Database, maintainRequestLogs, type RequestLogMaintenance } from "@tollgate/db";
import type { DatabaseCircuit } from "../database-circuit";
import type { Logger } from "../logger";
import type { SettingsCache } from "../settings-cache";
import type { Job } from "./jobs";

/** Hourly: partitions are made two months ahead, so an hour late costs nothing; old rows go in small batches. */
export const LOG_RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The request log's upkeep, off the request path: monthly partitions made ahead, those past the
 * `request_log_retention_days` setting dropped, the remaining old rows deleted in batches
 * (`maintainRequestLogs`, which takes an advisory lock so that several instances never do it twice). A run
 * still going when the next is due is not doubled; none runs while the database is unreachable.
 */
export function createLogRetentionServices(input: {
  db: Database;
  settings: Pick<SettingsCache, "get">;
  circuit: Pick<DatabaseCircuit, "isOpen">;
  log: Logger;
}): { purgeRequestLogs(): Promise<RequestLogMaintenance | null>; jobs: Job[] } {
  const { db, settings, circuit, log } = input;
  let running: Promise<RequestLogMaintenance | null> | null = null;
  const pass = async (): Promise<RequestLogMaintenance | null> => {
    if (circuit.isOpen) return null;
    const { requestLogRetentionDays } = await settings.get();
    const outcome = await maintainRequestLogs(db, { retentionDays: requestLogRetentionDays });
    if (outcome.created.length > 0 || outcome.dropped.length > 0 || outcome.deletedRows > 0) {
      log("info", "request log retention", {
        retentionDays: requestLogRetentionDays,
        partitionsCreated: outcome.created,
        partitionsDropped: outcome.dropped,
        rowsDeleted: outcome.deletedRows,
      });
    }
    return outcome;
  };
  const purgeRequestLogs = () => {
    running ??= pass().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    purgeRequestLogs,
    jobs: [{ name: "request-log-retention", intervalMs: LOG_RETENTION_INTERVAL_MS, runAtStart: true, run: purgeRequestLogs }],
  };
}
