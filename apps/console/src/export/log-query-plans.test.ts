import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { firstCallQuery } from "@tollgate/admin";
import { type Database, maintainRequestLogs, requestLogs, resultRows, usageHourly } from "@tollgate/db";
import { and, eq, gte, lt, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type FreshDatabase, freshDatabase } from "../../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import type { SessionUser } from "../auth/sessions";
import { rollupRows } from "../routers/dashboard";
import { type LogFilters, logConditions, logRowsQuery } from "./log-filters";

let database: FreshDatabase;

const admin: SessionUser = { id: 1, name: "root", role: "admin", group: "default" };
const alice: SessionUser = { id: 2, name: "alice", role: "user", group: "default" };
const DAY_MS = 86_400_000;
const thisMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
const nextMonth = new Date(Date.UTC(thisMonth.getUTCFullYear(), thisMonth.getUTCMonth() + 1, 1));

beforeAll(async () => {
  database = await freshDatabase();
  // This month's partition and the next two (a template migrated in an earlier month lacks some).
  await maintainRequestLogs(database.handle.db, { retentionDays: 0 });
  const rows: (typeof requestLogs.$inferInsert)[] = [];
  // Rows in every partition: this month and before, the next two months, and the default.
  for (let index = 0; index < 2000; index++) {
    rows.push({
      createdAt: new Date(nextMonth.getTime() + ((index % 130) - 40) * DAY_MS),
      requestId: `req_${index}`,
      userId: 1 + (index % 5),
      tokenId: 10 + (index % 9),
      endpoint: "chat.completions",
      model: `model-${index % 7}`,
      channelId: index % 3,
      status: index % 20 === 0 ? 502 : 200,
      latencyMs: 10,
    });
  }
  await database.handle.db.insert(requestLogs).values(rows);
  await database.handle.db.execute(sql`analyze request_logs`);
}, SETUP_TIMEOUT_MS);

afterAll(() => database?.drop(), SETUP_TIMEOUT_MS);

/**
 * The plan of `query` when the planner may not scan a table whole, sort, or go through a bitmap: a plan
 * that still has a sequential scan of request_logs or a sort means that no index serves the query's filter
 * and order (on a large table it would read every row). Robust on a small table, unlike costs.
 */
async function planOf(db: Database, query: SQLWrapper): Promise<string> {
  return db.transaction(async (tx) => {
    for (const setting of ["enable_seqscan", "enable_bitmapscan", "enable_sort", "enable_incremental_sort"]) {
      await tx.execute(sql.raw(`set local ${setting} = off`));
    }
    const rows = resultRows(await tx.execute(sql`explain (costs off) ${query}`));
    return rows.map((row) => String(Object.values(row)[0])).join("\n");
  });
}

/** "partial" for the errors index, else the leading column of an index over request_logs' partitions. */
type IndexLead = "partial" | "created_at" | "user_id" | "token_id" | "model" | "channel_id";

/** What each index of request_logs' partitions leads with, from the catalog (partition indexes are named by Postgres). */
async function indexLeads(db: Database): Promise<Map<string, IndexLead>> {
  const rows = resultRows(
    await db.execute(sql`
      select index.indexrelid::regclass::text as name, index.indpred is not null as partial, attribute.attname as lead
      from pg_index index
      join pg_inherits on pg_inherits.inhrelid = index.indrelid and pg_inherits.inhparent = 'request_logs'::regclass
      join pg_attribute attribute on attribute.attrelid = index.indrelid and attribute.attnum = index.indkey[0]`),
  );
  return new Map(rows.map((row) => [String(row.name), row.partial === true || row.partial === "t" ? "partial" : (String(row.lead) as IndexLead)]));
}

/**
 * No sequential scan of request_logs, no sort (the rows come in order from the indexes), and every
 * partition read through an index that leads with one of `leads` (the filter's own column, so that a
 * rare value is not looked for by walking the whole time index).
 */
async function expectServedBy(plan: string, leads: IndexLead[]): Promise<void> {
  expect(plan).not.toMatch(/Seq Scan on request_logs/);
  expect(plan).not.toMatch(/^\s*(->\s+)?(Incremental )?Sort\s*$/m);
  const known = await indexLeads(database.handle.db);
  const used = [...plan.matchAll(/Index (?:Only )?Scan (?:Backward )?using (\S+) on request_logs/g)].map((match) => match[1]!);
  expect(used.length).toBeGreaterThan(0);
  for (const index of used) expect(leads).toContain(known.get(index)!);
}

const pageFilters: [string, SessionUser, LogFilters, IndexLead[]][] = [
  ["an administrator's unfiltered page", admin, {}, ["created_at"]],
  ["one user's calls", admin, { userId: 3 }, ["user_id"]],
  ["one token's calls", admin, { tokenId: 12 }, ["token_id"]],
  ["one model's calls", admin, { model: "model-4" }, ["model"]],
  ["one channel's calls", admin, { channelId: 2 }, ["channel_id"]],
  ["errors only", admin, { status: "error" }, ["partial"]],
  ["one error status", admin, { status: 502 }, ["partial"]],
  ["successes only", admin, { status: "success" }, ["created_at"]],
  ["a time range", admin, { from: new Date(nextMonth.getTime() - 10 * DAY_MS), to: nextMonth }, ["created_at"]],
  ["a user's own calls", alice, {}, ["user_id"]],
  ["a user's own calls of one model", alice, { model: "model-1" }, ["user_id", "model"]],
  ["a user's own errors in a range", alice, { status: "error", from: new Date(nextMonth.getTime() - 30 * DAY_MS), to: nextMonth }, ["user_id", "partial"]],
];

describe("console queries of the request log", () => {
  for (const [name, user, filters, leads] of pageFilters) {
    test(`the logs page (${name}) reads its rows in order from an index, first page and next`, async () => {
      const conditions = logConditions(user, filters);
      await expectServedBy(await planOf(database.handle.db, logRowsQuery(database.handle.db, conditions, "newest", null, 51)), leads);
      const cursor = { at: new Date(nextMonth.getTime() - 5 * DAY_MS).toISOString().replace("Z", "000Z"), id: 100 };
      await expectServedBy(await planOf(database.handle.db, logRowsQuery(database.handle.db, conditions, "newest", cursor, 51)), leads);
    });

    test(`the CSV export (${name}) pages through the range oldest first from an index`, async () => {
      const conditions = logConditions(user, { from: new Date(nextMonth.getTime() - 40 * DAY_MS), to: nextMonth, ...filters });
      const cursor = { at: new Date(nextMonth.getTime() - 20 * DAY_MS).toISOString().replace("Z", "000Z"), id: 50 };
      // A range narrows every filter: its time index may serve as well as the filter's own.
      await expectServedBy(await planOf(database.handle.db, logRowsQuery(database.handle.db, conditions, "oldest", cursor, 1000)), [...leads, "created_at"]);
    });
  }

  test("a time range reads only the partitions of its months", async () => {
    const conditions = logConditions(admin, { from: new Date(nextMonth.getTime() + DAY_MS), to: new Date(nextMonth.getTime() + 9 * DAY_MS) });
    const plan = await planOf(database.handle.db, logRowsQuery(database.handle.db, conditions, "newest", null, 51));
    const next = `request_logs_p${nextMonth.getUTCFullYear()}_${String(nextMonth.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(plan).toContain(next);
    expect(plan).not.toContain("request_logs_p_initial");
  });

  test("the onboarding's first-call check reads one row from an index, for a user or for anyone", async () => {
    for (const userId of [undefined, 3]) {
      const plan = await planOf(database.handle.db, firstCallQuery(database.handle.db, userId));
      expect(plan).not.toMatch(/Seq Scan on request_logs/);
      expect(plan).toMatch(/Limit/);
    }
  });

  test("the dashboard reads the hourly and daily rollups by their range, for everyone or one user, from an index", async () => {
    const range = { from: new Date(nextMonth.getTime() - 30 * DAY_MS), to: new Date(nextMonth.getTime() - 2 * 3_600_000) };
    for (const owner of [undefined, 2]) {
      for (const bucket of ["hour", "day"] as const) {
        const plan = await planOf(database.handle.db, sql`select * from (${rollupRows({ ...range, owner, bucket })}) usage`);
        expect(plan).not.toMatch(/Seq Scan on usage_(hourly|daily)/);
        expect(plan).toMatch(bucket === "day" ? /Index (Only )?Scan.* on usage_daily/ : /Index (Only )?Scan.* on usage_hourly/);
      }
    }
  });

  test("the usage export reads usage_hourly by its range, for everyone or one user, from an index", async () => {
    const range = [gte(usageHourly.hour, new Date(nextMonth.getTime() - 30 * DAY_MS)), lt(usageHourly.hour, nextMonth)];
    for (const owner of [undefined, eq(usageHourly.userId, 2)] as (SQL | undefined)[]) {
      const query = database.handle.db.select().from(usageHourly).where(and(...range, owner)).orderBy(usageHourly.hour).limit(1000);
      const plan = await planOf(database.handle.db, query);
      expect(plan).not.toMatch(/Seq Scan on usage_hourly/);
      expect(plan).toMatch(/Index (Only )?Scan/);
    }
  });
});
