import { sql } from "drizzle-orm";
import { type Database, resultRows } from "./client";

/**
 * Arbitrary constant: the advisory lock that one gateway instance holds (per transaction) while it creates,
 * drops or purges request-log partitions, so that several instances sharing one database never do the same
 * work twice or trip over each other's DDL.
 */
export const REQUEST_LOG_MAINTENANCE_LOCK_ID = 7_201_927;

/** A waiting DDL statement queues every insert behind it: give up instead and try again at the next run. */
const DDL_LOCK_TIMEOUT = "3s";

export interface RequestLogPartition {
  name: string;
  /** Inclusive lower bound; null: MINVALUE (the partition of the rows that predate partitioning) or default. */
  from: Date | null;
  /** Exclusive upper bound; null: MAXVALUE or the default partition. */
  to: Date | null;
  isDefault: boolean;
}

export interface RequestLogMaintenance {
  /** Partitions made ahead (request_logs_pYYYY_MM), rows of their month moved out of the default partition. */
  created: string[];
  /** Partitions whose every row was older than the retention, dropped whole. */
  dropped: string[];
  /** Rows deleted in batches from the partitions that straddle the cut-off (and from the default one). */
  deletedRows: number;
  /** True when another instance held the maintenance lock: this run left everything to it. */
  skipped: boolean;
}

export interface RequestLogMaintenanceOptions {
  /** Rows older than this many days are purged; 0 keeps them forever. */
  retentionDays: number;
  /** Months after the current one that get a partition ahead of time. */
  monthsAhead?: number;
  /** Rows per DELETE (each its own short transaction, so that inserts interleave). */
  batchSize?: number;
  /** DELETE statements per run at most; the rest waits for the next run. */
  maxBatches?: number;
  /** The clock (tests move it); defaults to now. */
  now?: Date;
}

type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

function monthStart(time: Date, addMonths = 0): Date {
  return new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth() + addMonths, 1));
}

/** request_logs_p2026_11 for November 2026 (UTC). */
export function monthlyPartitionName(month: Date): string {
  return `request_logs_p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, "0")}`;
}

function toDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(String(value));
}

/** The partitions of request_logs with their bounds, read from the catalog (bounds parsed by Postgres itself). */
export async function listRequestLogPartitions(db: Database | Transaction): Promise<RequestLogPartition[]> {
  const rows = resultRows(
    await db.execute(sql`
      select name, bound = 'DEFAULT' as is_default,
        to_char(substring(bound from 'FROM \\(''([^'']+)''\\)')::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as lower_bound,
        to_char(substring(bound from 'TO \\(''([^'']+)''\\)')::timestamptz at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as upper_bound
      from (
        select child.relname as name, pg_get_expr(child.relpartbound, child.oid) as bound
        from pg_inherits
        join pg_class child on child.oid = pg_inherits.inhrelid
        where pg_inherits.inhparent = 'request_logs'::regclass
      ) partitions
      order by upper_bound nulls last, name`),
  );
  return rows.map((row) => ({
    name: String(row.name),
    from: toDate(row.lower_bound),
    to: toDate(row.upper_bound),
    isDefault: row.is_default === true || row.is_default === "t",
  }));
}

/** Runs `work` in a transaction that holds the maintenance lock; null when another instance holds it. */
async function underMaintenanceLock<Result>(db: Database, work: (tx: Transaction) => Promise<Result>): Promise<Result | null> {
  return db.transaction(async (tx) => {
    const [row] = resultRows(await tx.execute(sql`select pg_try_advisory_xact_lock(${REQUEST_LOG_MAINTENANCE_LOCK_ID}::bigint) as locked`));
    if (!(row?.locked === true || row?.locked === "t")) return null;
    return work(tx);
  });
}

/**
 * Makes the partition of this month and of the next `monthsAhead` months where none covers them yet. Rows of
 * such a month that landed in the default partition meanwhile are moved into the new one before it is
 * attached (Postgres refuses to attach a range that default rows fall in). Null when another instance holds
 * the lock.
 */
async function createPartitionsAhead(db: Database, now: Date, monthsAhead: number): Promise<string[] | null> {
  return underMaintenanceLock(db, async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${DDL_LOCK_TIMEOUT}'`));
    const partitions = await listRequestLogPartitions(tx);
    const defaultPartition = partitions.find((partition) => partition.isDefault);
    const created: string[] = [];
    for (let offset = 0; offset <= monthsAhead; offset++) {
      const from = monthStart(now, offset);
      const to = monthStart(now, offset + 1);
      const covered = partitions.some(
        (partition) => !partition.isDefault && (partition.from === null || partition.from < to) && (partition.to === null || partition.to > from),
      );
      if (covered) continue;
      const name = sql.identifier(monthlyPartitionName(from));
      await tx.execute(sql`create table ${name} (like request_logs including defaults including storage)`);
      if (defaultPartition) {
        await tx.execute(sql`
          with moved as (
            delete from ${sql.identifier(defaultPartition.name)}
            where created_at >= ${from.toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz
            returning *)
          insert into ${name} select * from moved`);
      }
      await tx.execute(
        sql`alter table request_logs attach partition ${name} for values from (${sql.raw(`'${from.toISOString()}'`)}) to (${sql.raw(`'${to.toISOString()}'`)})`,
      );
      created.push(monthlyPartitionName(from));
    }
    return created;
  });
}

/** Drops the partitions whose upper bound is at or before the cut-off: every row in them is past retention. */
async function dropExpiredPartitions(db: Database, cutoff: Date): Promise<string[] | null> {
  return underMaintenanceLock(db, async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${DDL_LOCK_TIMEOUT}'`));
    const expired = (await listRequestLogPartitions(tx)).filter((partition) => partition.to !== null && partition.to <= cutoff);
    for (const partition of expired) await tx.execute(sql`drop table ${sql.identifier(partition.name)}`);
    return expired.map((partition) => partition.name);
  });
}

/**
 * Deletes up to `batchSize` of the oldest rows before the cut-off (those of the partition that straddles it,
 * and of the default partition): the rows before the batch's edge in (created_at, id) order, read from the
 * created_at index. The number deleted, or null when another instance holds the lock.
 */
async function deleteExpiredBatch(db: Database, cutoff: Date, batchSize: number): Promise<number | null> {
  return underMaintenanceLock(db, async (tx) => {
    const before = sql`${cutoff.toISOString()}::timestamptz`;
    const [edge] = resultRows(
      await tx.execute(sql`
        select created_at::text as at, id from request_logs where created_at < ${before}
        order by created_at, id offset ${batchSize} limit 1`),
    );
    // Fewer rows than a batch: all of them.
    const bound = edge
      ? sql`created_at <= ${String(edge.at)}::timestamptz and (created_at, id) < (${String(edge.at)}::timestamptz, ${Number(edge.id)}::bigint)`
      : sql`true`;
    const deleted = await tx.execute(sql`
      with gone as (delete from request_logs where created_at < ${before} and ${bound} returning 1)
      select count(*)::int as deleted from gone`);
    return Number(resultRows(deleted)[0]?.deleted ?? 0);
  });
}

/**
 * One pass of request-log maintenance, safe to run from several instances at once (each step takes the
 * maintenance lock, or leaves the step to whoever holds it): partitions made ahead, then, unless the
 * retention is 0 (keep forever), partitions past it dropped and the rest of the old rows deleted in batches.
 */
export async function maintainRequestLogs(db: Database, options: RequestLogMaintenanceOptions): Promise<RequestLogMaintenance> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 2000;
  const maxBatches = options.maxBatches ?? 100;
  const result: RequestLogMaintenance = { created: [], dropped: [], deletedRows: 0, skipped: false };
  const created = await createPartitionsAhead(db, now, options.monthsAhead ?? 2);
  if (created === null) return { ...result, skipped: true };
  result.created = created;
  if (options.retentionDays <= 0) return result;
  const cutoff = new Date(now.getTime() - options.retentionDays * 86_400_000);
  const dropped = await dropExpiredPartitions(db, cutoff);
  if (dropped === null) return { ...result, skipped: true };
  result.dropped = dropped;
  for (let batch = 0; batch < maxBatches; batch++) {
    const deleted = await deleteExpiredBatch(db, cutoff, batchSize);
    if (deleted === null) return { ...result, skipped: true };
    result.deletedRows += deleted;
    if (deleted < batchSize) break;
  }
  return result;
}
