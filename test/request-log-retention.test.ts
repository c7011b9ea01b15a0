import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  type Database,
  listRequestLogPartitions,
  maintainRequestLogs,
  monthlyPartitionName,
  REQUEST_LOG_MAINTENANCE_LOCK_ID,
  requestLogs,
  resultRows,
  settings,
} from "@tollgate/db";
import { createLogRetentionServices } from "@tollgate/gateway/services/log-retention-services";
import { SettingsCache } from "@tollgate/gateway/settings-cache";
import { asc, sql } from "drizzle-orm";
import { type FreshDatabase, freshDatabase, usePostgres } from "./helpers/fresh-database";

// A fresh PGlite takes seconds to load on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const DAY_MS = 86_400_000;

function monthStart(time: Date, addMonths: number): Date {
  return new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth() + addMonths, 1));
}

async function insertLogs(db: Database, prefix: string, createdAt: Date, count: number): Promise<void> {
  const rows = Array.from({ length: count }, (_, index) => ({
    requestId: `${prefix}_${index}`,
    createdAt,
    endpoint: "chat.completions",
    model: "m",
    status: 200,
    latencyMs: 1,
  }));
  await db.insert(requestLogs).values(rows);
}

async function requestIds(db: Database): Promise<string[]> {
  return (await db.select({ requestId: requestLogs.requestId }).from(requestLogs).orderBy(asc(requestLogs.requestId))).map((row) => row.requestId);
}

async function partitionOf(db: Database, requestId: string): Promise<string> {
  const [row] = resultRows(await db.execute(sql`select tableoid::regclass::text as partition from request_logs where request_id = ${requestId}`));
  return String(row?.partition);
}

const silent = () => {};

describe("request log retention", () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database?.drop());
  afterEach(async () => {
    await database.handle.db.execute(sql`delete from request_logs`);
    await database.handle.db.delete(settings).where(sql`${settings.key} = 'request_log_retention_days'`);
  });

  test("partitions past the retention are dropped whole, old rows of the partition that straddles it deleted in batches, recent rows kept", async () => {
    const db = database.handle.db;
    const thisMonth = monthStart(new Date(), 0);
    // The migration made the partition of the rows before its next month and the two months after; a
    // database migrated in an earlier month (a cached template) gets the months since from the job's first run.
    await maintainRequestLogs(db, { retentionDays: 0 });
    const names = (await listRequestLogPartitions(db)).map((partition) => partition.name);
    expect(names).toContain("request_logs_p_initial");
    for (const months of [1, 2]) expect(names).toContain(monthlyPartitionName(monthStart(thisMonth, months)));

    // The clock of the run: mid-month, three months on; rows older than 30 days before it are expired.
    const now = new Date(monthStart(thisMonth, 3).getTime() + 15 * DAY_MS);
    const cutoff = new Date(now.getTime() - 30 * DAY_MS);
    await insertLogs(db, "a_initial", new Date(thisMonth.getTime() - 300 * DAY_MS), 5);
    await insertLogs(db, "b_month1", new Date(monthStart(thisMonth, 1).getTime() + DAY_MS), 4);
    await insertLogs(db, "c_expired", new Date(cutoff.getTime() - 3_600_000), 7);
    await insertLogs(db, "d_kept", new Date(cutoff.getTime() + 3_600_000), 2);
    // Beyond every partition: the default one takes it (no insert ever fails).
    await insertLogs(db, "e_ahead", new Date(monthStart(thisMonth, 3).getTime() + 2 * DAY_MS), 3);
    expect(await partitionOf(db, "e_ahead_0")).toBe("request_logs_default");
    expect(await partitionOf(db, "c_expired_0")).toBe(monthlyPartitionName(monthStart(thisMonth, 2)));

    const expired = (await listRequestLogPartitions(db)).filter((partition) => partition.to !== null && partition.to <= cutoff).map((partition) => partition.name);
    expect(expired).toContain("request_logs_p_initial");
    expect(expired).toContain(monthlyPartitionName(monthStart(thisMonth, 1)));
    const first = await maintainRequestLogs(db, { retentionDays: 30, now, batchSize: 3, maxBatches: 2 });
    expect(first.skipped).toBe(false);
    expect(first.dropped.sort()).toEqual(expired.sort());
    expect(first.created).toEqual([3, 4, 5].map((months) => monthlyPartitionName(monthStart(thisMonth, months))));
    // Two batches of three: one expired row is left for the next run.
    expect(first.deletedRows).toBe(6);
    const left = await requestIds(db);
    expect(left.filter((id) => id.startsWith("c_expired"))).toHaveLength(1);

    const second = await maintainRequestLogs(db, { retentionDays: 30, now, batchSize: 3, maxBatches: 2 });
    expect(second).toEqual({ created: [], dropped: [], deletedRows: 1, skipped: false });
    expect(await requestIds(db)).toEqual(["d_kept_0", "d_kept_1", "e_ahead_0", "e_ahead_1", "e_ahead_2"]);
    // The rows that waited in the default partition moved into their month's partition when it was made.
    expect(await partitionOf(db, "e_ahead_0")).toBe(monthlyPartitionName(monthStart(thisMonth, 3)));
    const [defaultRows] = resultRows(await db.execute(sql`select count(*)::int as rows from request_logs_default`));
    expect(defaultRows?.rows).toBe(0);
    // Ids go on from the same sequence after all that.
    await insertLogs(db, "f_after", new Date(), 1);
    expect(await requestIds(db)).toContain("f_after_0");
  });

  test("the retention is the request_log_retention_days setting: 90 days by default, 0 keeps every row", async () => {
    const db = database.handle.db;
    const cache = new SettingsCache(db);
    const retention = createLogRetentionServices({ db, settings: cache, circuit: { isOpen: false }, log: silent });
    const now = Date.now();
    await insertLogs(db, "old_100d", new Date(now - 100 * DAY_MS), 2);
    await insertLogs(db, "old_10d", new Date(now - 10 * DAY_MS), 2);
    await insertLogs(db, "new", new Date(now - 60_000), 1);

    await db.insert(settings).values({ key: "request_log_retention_days", value: 0 });
    cache.invalidate();
    expect((await retention.purgeRequestLogs())?.deletedRows).toBe(0);
    expect(await requestIds(db)).toHaveLength(5);

    await db.delete(settings).where(sql`${settings.key} = 'request_log_retention_days'`);
    cache.invalidate();
    await retention.purgeRequestLogs();
    expect(await requestIds(db)).toEqual(["new_0", "old_10d_0", "old_10d_1"]);

    await db.insert(settings).values({ key: "request_log_retention_days", value: 5 });
    cache.invalidate();
    await retention.purgeRequestLogs();
    expect(await requestIds(db)).toEqual(["new_0"]);
  });

  test("a run asked for while one is going is that same run, not a second one", async () => {
    const db = database.handle.db;
    await insertLogs(db, "old", new Date(Date.now() - 200 * DAY_MS), 3);
    const retention = createLogRetentionServices({ db, settings: new SettingsCache(db), circuit: { isOpen: false }, log: silent });
    const [first, second] = await Promise.all([retention.purgeRequestLogs(), retention.purgeRequestLogs()]);
    expect(second).toBe(first);
    expect(first?.deletedRows).toBe(3);
  });

  test.skipIf(!usePostgres)("a partition drop that cannot get its lock gives up at the lock timeout (inserts queued behind it wait that long at most) and the next run drops it", async () => {
    const db = database.handle.db;
    const other = (await database.openAnother()).db;
    const old = new Date(Date.UTC(new Date().getUTCFullYear() - 3, 0, 10));
    const monthOf = (time: Date) => new Date(Date.UTC(time.getUTCFullYear(), time.getUTCMonth(), 1));
    // A partition three years back, every row of it past the retention.
    await maintainRequestLogs(db, { retentionDays: 0, now: old, monthsAhead: 0 });
    await insertLogs(db, "ancient", old, 2);
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    // A long reader of that partition (an export, say) holds its lock until released.
    const reader = other.transaction(async (tx) => {
      await tx.execute(sql`select count(*) from ${sql.identifier(monthlyPartitionName(monthOf(old)))}`);
      holding();
      await released;
    });
    await held;
    try {
      const purge = maintainRequestLogs(db, { retentionDays: 30 }).then(
        () => null,
        (error: unknown) => String((error as { cause?: unknown }).cause ?? error),
      );
      // An insert meanwhile (the write-behind) is through once the drop has given up, if not before.
      await insertLogs(db, "during", new Date(), 1);
      expect(await purge).toMatch(/lock timeout/);
    } finally {
      release();
      await reader;
    }
    expect((await maintainRequestLogs(db, { retentionDays: 30 })).dropped).toEqual([monthlyPartitionName(monthOf(old))]);
    expect(await requestIds(db)).toEqual(["during_0"]);
  });

  test("nothing is purged while the database circuit is open", async () => {
    const db = database.handle.db;
    await insertLogs(db, "ancient", new Date(Date.now() - 1000 * DAY_MS), 1);
    const retention = createLogRetentionServices({ db, settings: new SettingsCache(db), circuit: { isOpen: true }, log: silent });
    expect(await retention.purgeRequestLogs()).toBeNull();
    expect(await requestIds(db)).toEqual(["ancient_0"]);
  });

  test("two instances purging at once delete each expired row once, and one that finds the lock held leaves the work to its holder", async () => {
    const first = database.handle.db;
    const second = usePostgres ? (await database.openAnother()).db : first;
    const now = Date.now();
    await insertLogs(first, "expired", new Date(now - 40 * DAY_MS), 50);
    await insertLogs(first, "recent", new Date(now - DAY_MS), 3);

    if (usePostgres) {
      // While another session holds the maintenance lock, this instance neither makes, drops nor deletes.
      const heldOutcome = await first.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${REQUEST_LOG_MAINTENANCE_LOCK_ID}::bigint)`);
        return maintainRequestLogs(second, { retentionDays: 30, batchSize: 10 });
      });
      expect(heldOutcome).toEqual({ created: [], dropped: [], deletedRows: 0, skipped: true });
      expect(await requestIds(first)).toHaveLength(53);
    }

    const outcomes = await Promise.all([
      maintainRequestLogs(first, { retentionDays: 30, batchSize: 10 }),
      maintainRequestLogs(second, { retentionDays: 30, batchSize: 10 }),
    ]);
    // A run that was turned away mid-way is finished by the next one, as the hourly job would.
    const again = await maintainRequestLogs(first, { retentionDays: 30, batchSize: 10 });
    expect(outcomes[0]!.deletedRows + outcomes[1]!.deletedRows + again.deletedRows).toBe(50);
    expect(await requestIds(first)).toEqual(["recent_0", "recent_1", "recent_2"]);
  });
});
