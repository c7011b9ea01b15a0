import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, listRequestLogPartitions, migrationsFolder, openDatabase, requestLogs, resultRows } from "@tollgate/db";
import { asc, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";

// Every migration from an empty database, twice, on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(120_000);

const PARTITIONING_MIGRATION = "request_log_partitions";

/** The migrations folder as it was before request_logs was partitioned (journal and SQL files). */
function migrationsBeforePartitioning(): string {
  const folder = mkdtempSync(join(tmpdir(), "tollgate-migrations-"));
  const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const cut = journal.entries.findIndex((entry) => entry.tag.includes(PARTITIONING_MIGRATION));
  if (cut < 0) throw new Error(`no migration named ${PARTITIONING_MIGRATION}`);
  const entries = journal.entries.slice(0, cut);
  mkdirSync(join(folder, "meta"));
  writeFileSync(join(folder, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  for (const entry of entries) cpSync(join(migrationsFolder, `${entry.tag}.sql`), join(folder, `${entry.tag}.sql`));
  return folder;
}

/** An empty database (PGlite in memory, or a new database on DATABASE_URL's server) and how to migrate it. */
async function emptyDatabase(): Promise<{ handle: DatabaseHandle; migrate(folder: string): Promise<void>; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const handle = await openDatabase({ dataDir: "memory://" });
    return { handle, migrate: (folder) => migratePglite(handle.db as never, { migrationsFolder: folder }), drop: () => handle.close() };
  }
  const name = `tollgate_mig_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
  return {
    handle,
    async migrate(folder) {
      const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
      await migratePostgres(drizzle(client), { migrationsFolder: folder }).finally(() => client.end({ timeout: 5 }));
    },
    async drop() {
      await handle.close().catch(() => {});
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
    },
  };
}

describe("the migration that partitions request_logs", () => {
  let database: Awaited<ReturnType<typeof emptyDatabase>>;
  let before: string;
  beforeAll(async () => {
    database = await emptyDatabase();
    before = migrationsBeforePartitioning();
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(before, { recursive: true, force: true });
  });

  test("keeps every row written before it, in place, and new rows go on with the same ids into monthly partitions", async () => {
    await database.migrate(before);
    const db = database.handle.db;
    await db.execute(sql`
      insert into request_logs (created_at, request_id, endpoint, model, status, latency_ms, cost)
      values ('2024-01-15T10:00:00Z', 'req_2024', 'chat.completions', 'old', 200, 5, 100),
             (now() - interval '1 hour', 'req_recent', 'chat.completions', 'old', 500, 7, 0)`);

    await database.migrate(migrationsFolder);

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

    const next = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 3));
    await db.insert(requestLogs).values({ createdAt: next, requestId: "req_next_month", endpoint: "chat.completions", model: "new", status: 200, latencyMs: 1 });
    const [inserted] = resultRows(await db.execute(sql`select id, tableoid::regclass::text as partition from request_logs where request_id = 'req_next_month'`));
    expect(Number(inserted?.id)).toBe(3);
    expect(inserted?.partition).toBe(`request_logs_p${next.getUTCFullYear()}_${String(next.getUTCMonth() + 1).padStart(2, "0")}`);
  });
});
