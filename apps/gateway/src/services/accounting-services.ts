import type { DatabaseHandle } from "@tollgate/db";
import { BudgetWindows } from "@tollgate/shared";
import { OutageAllowances } from "../accounting/outage-allowance";
import { QuotaLedger } from "../accounting/quota-ledger";
import { LeaseBook } from "../accounting/quota-leases";
import { replayOrphanSpools } from "../accounting/spool-replay";
import { SpooledUsageSink } from "../accounting/spooled-usage-sink";
import { UsageSpool } from "../accounting/usage-spool";
import { type UsageSink, UsageWriter, type WrittenUsage } from "../accounting/usage-writer";
import { ThreadedUsageWriter, type UsageWorkerSettings } from "../accounting/usage-writer-thread";
import type { DatabaseCircuit } from "../database-circuit";
import type { GatewayOptions } from "../gateway-options";
import type { Logger } from "../logger";
import type { Job } from "./jobs";

/** Quota (the ledger over this instance's leases) and usage (the durable spool and the write-behind). */
export interface AccountingServices {
  leases: LeaseBook;
  ledger: QuotaLedger;
  usage: UsageSink;
  /** Resolves once a spool replay that is running has ended (a shutdown waits for it). */
  replayed(): Promise<unknown>;
  jobs: Job[];
}

/**
 * How the write-behind's thread reaches the database: a pool of its own on Postgres, the PGlite thread's
 * port when embedded; null when it cannot (the writer then runs on this thread).
 */
function usageThreadDatabase(database: DatabaseHandle): UsageWorkerSettings["database"] | null {
  if (database.kind === "postgres" && database.url) return { url: database.url, poolSize: 2 };
  return database.share ? { shared: database.share() } : null;
}

export function createAccountingServices(input: {
  database: DatabaseHandle;
  log: Logger;
  instanceId: string;
  circuit: DatabaseCircuit;
  /** Totals a commit returned (this process's writes, and replays of other spools), for the caches and alerts. */
  onTotals(written: WrittenUsage): void;
  options: GatewayOptions;
}): AccountingServices {
  const { database, log, instanceId, circuit, onTotals, options } = input;
  const db = database.db;
  const leases = new LeaseBook(db, instanceId, (message, fields) => log("warn", message, fields), options.quotaLeases, circuit);
  const ledger = new QuotaLedger(leases, new BudgetWindows(), options.clock, new OutageAllowances(options.outageAllowance));
  const spool = new UsageSpool({ dir: options.usageSpoolDir, spoolId: instanceId, syncMs: options.usageSpoolSyncMs, log });
  const onWritten = (written: WrittenUsage) => {
    const { tokenDeltas, userDeltas, leaseRows } = written;
    spool.committed(written.spoolSeq);
    ledger.markWritten(tokenDeltas, userDeltas, written.subjectDeltas ?? new Map(), leaseRows);
    onTotals(written);
  };
  // Settings of either writer that can cross to the worker thread (callbacks cannot). PGlite's WebAssembly
  // memory grows to fit the largest statement it has run and never shrinks: its inserts stay small. On PGlite
  // a full buffer waits for the tick: there a transaction costs its thread more, and the memory a smaller
  // batch saves is lost in PGlite's own (docs/benchmarks.md).
  const batching = {
    intervalMs: options.usageFlushIntervalMs,
    maxBufferedLogs: options.usageBufferMax,
    instanceId,
    ...(database.kind === "pglite" ? { rowsPerInsert: 100, writeAtLogs: null } : {}),
  };
  const inThreadWriter = () =>
    new UsageWriter(db, {
      ...batching,
      log: (message, fields) => log("warn", message, fields),
      onWritten,
      // Only if the thread is off or died: PGlite's inserts then run on this thread, in slices between requests.
      ...(database.kind === "pglite" ? { yieldBetweenInserts: true } : {}),
    });
  const threadDatabase = options.usageWriterThread ? usageThreadDatabase(database) : null;
  const writer: UsageSink = threadDatabase
    ? new ThreadedUsageWriter({ settings: { database: threadDatabase, ...batching }, onWritten, log, fallback: inThreadWriter })
    : inThreadWriter();
  const usage = new SpooledUsageSink(writer, spool);

  let replaying: Promise<number> | null = null;
  const spoolDir = options.usageSpoolDir;
  /** Spools left by processes that are gone (on this folder): written now, and checked again every 30 s. */
  const replaySpools = (dir: string) => {
    if (replaying) return replaying;
    replaying = replayOrphanSpools({
      db,
      dir,
      ownSpoolId: instanceId,
      rowsPerInsert: batching.rowsPerInsert ?? 5000,
      log: (level, message, fields) => log(level, message, fields),
      onWritten: onTotals,
    }).finally(() => {
      replaying = null;
    });
    return replaying;
  };

  const jobs: Job[] = [{ name: "quota-lease-renewal", intervalMs: leases.renewIntervalMs, run: () => leases.renew() }];
  if (spoolDir) jobs.push({ name: "orphan-spool-replay", intervalMs: 30_000, runAtStart: true, run: () => void replaySpools(spoolDir) });
  return {
    leases,
    ledger,
    usage,
    replayed: async () => replaying?.catch(() => {}),
    jobs,
  };
}
