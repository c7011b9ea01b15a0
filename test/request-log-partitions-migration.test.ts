import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { listRequestLogPartitions, migrateDatabase, migrationsFolder, requestLogs, resultRows } from "@tollgate/db";
import { asc, sql } from "drizzle-orm";
import { emptyDatabase, migrateFirst } from "./helpers/migration-test";

// Every migration from an empty database, twice, on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(120_000);

const PARTITIONING_MIGRATION = "request_log_partitions";

/** How many migrations came before the one that partitions request_logs. */
function migrationsBeforePartitioning(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const index = journal.entries.findIndex((entry) => entry.tag.includes(PARTITIONING_MIGRATION));
  if (index < 0) throw new Error(`no migration named ${PARTITIONING_MIGRATION}`);
  return index;
}

describe("the migration that partitions request_logs", () => {
  let database: Awaited<ReturnType<typeof emptyDatabase>>;
  beforeAll(async () => {
    database = await emptyDatabase();
  });
  afterAll(() => database?.drop());

  test("keeps every row written before it, in place, and new rows go on with the same ids into monthly partitions", async () => {
    await migrateFirst(database.handle, migrationsBeforePartitioning());
    const db = database.handle.db;
    await db.execute(sql`
      insert into request_logs (created_at, request_id, endpoint, model, status, latency_ms, cost)
      values ('2024-01-15T10:00:00Z', 'req_2024', 'chat.completions', 'old', 200, 5, 100),
             (now() - interval '1 hour', 'req_recent', 'chat.completions', 'old', 500, 7, 0)`);
    await db.execute(sql`
      insert into usage_hourly (hour, user_id, token_id, model, channel_id, requests, errors, cost)
      values ('2024-01-15T10:00:00Z', 1, 1, 'old', 0, 3, 1, 300), ('2024-01-15T23:00:00Z', 1, 1, 'old', 0, 2, 0, 50),
             ('2024-01-16T00:00:00Z', 1, 1, 'old', 0, 1, 0, 7)`);

    await migrateDatabase(database.handle);

    const rows = await db.select({ id: requestLogs.id, requestId: requestLogs.requestId, cost: requestLogs.cost }).from(requestLogs).orderBy(asc(requestLogs.id));
    expect(rows).toEqual([
      { id: 1, requestId: "req_2024", cost: 100 },
      { id: 2, requestId: "req_recent", cost: 0 },
    ]);
    const partitions = await listRequestLogPartitions(db);
    expect(partitions[0]).toMatchObject({ name: "request_logs_p_initial", from: null });
    expect(partitions.map((partition) => partition.name)).toContain("request_logs_default");
    const [placed] = resultRows(await db.execute(sql`select count(*)::int as rows from request_logs_p_initial`));
    expect(placed?.rows).toBe(2);

    // The daily rollup starts out as the hourly rows of each UTC day summed.
    const daily = resultRows(await db.execute(sql`select to_char(day at time zone 'UTC', 'YYYY-MM-DD') as day, requests, errors, cost::int as cost from usage_daily order by day`));
    expect(daily).toEqual([
      { day: "2024-01-15", requests: 5, errors: 1, cost: 350 },
      { day: "2024-01-16", requests: 1, errors: 0, cost: 7 },
    ]);

    const next = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 3));
    await db.insert(requestLogs).values({ createdAt: next, requestId: "req_next_month", endpoint: "chat.completions", model: "new", status: 200, latencyMs: 1 });
    const [inserted] = resultRows(await db.execute(sql`select id, tableoid::regclass::text as partition from request_logs where request_id = 'req_next_month'`));
    expect(Number(inserted?.id)).toBe(3);
    expect(inserted?.partition).toBe(`request_logs_p${next.getUTCFullYear()}_${String(next.getUTCMonth() + 1).padStart(2, "0")}`);
  });
});
