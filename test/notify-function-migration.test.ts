import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, migrateDatabase, migrationsFolder, openDatabase, resultRows } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { freshDatabase } from "./helpers/fresh-database";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
const BODY = /CREATE OR REPLACE FUNCTION tollgate_notify_change\(\) RETURNS trigger AS \$\$([\s\S]*?)\$\$ LANGUAGE plpgsql;/;

/**
 * The migration that last writes the body of tollgate_notify_change() (today 0010; 0001 only declares it
 * for its triggers), its position in the journal, and the body between its $$ quotes.
 */
function latestBody(): { index: number; body: string } {
  for (let index = journal.entries.length - 1; index >= 0; index--) {
    const tag = journal.entries[index]!.tag;
    const match = BODY.exec(readFileSync(join(migrationsFolder, `${tag}.sql`), "utf8"));
    if (match) return { index, body: match[1]! };
  }
  throw new Error("no migration writes tollgate_notify_change()");
}

async function installed(handle: DatabaseHandle): Promise<{ body: string; triggers: string[] }> {
  const [fn] = resultRows(await handle.db.execute(sql`select prosrc from pg_proc where proname = 'tollgate_notify_change'`));
  const triggers = resultRows(
    await handle.db.execute(sql`select tgname from pg_trigger where tgfoid = 'tollgate_notify_change'::regproc order by tgname`),
  ).map((row) => String(row.tgname));
  return { body: String(fn?.prosrc), triggers };
}

const TRIGGERS = ["channels_notify", "mcp_servers_notify", "model_prices_notify", "settings_notify", "tokens_notify", "users_notify"];

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An empty database (no migration applied): in-memory PGlite, or a new database on DATABASE_URL's server. */
async function emptyDatabase(): Promise<DatabaseHandle> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const handle = await openDatabase({ dataDir: "memory://" });
    cleanups.push(() => handle.close());
    return handle;
  }
  const name = `tollgate_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
  cleanups.push(async () => {
    await handle.close().catch(() => {});
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  });
  return handle;
}

/** Applies the first `count` migrations of drizzle/ only, as a database that last migrated back then. */
async function migrateFirst(handle: DatabaseHandle, count: number): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "tollgate-migrations-"));
  cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
  cpSync(migrationsFolder, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: unknown[] };
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(journalPath, JSON.stringify(journal));
  if (handle.kind === "pglite") await migratePglite(handle.db as never, { migrationsFolder: folder });
  else await migratePostgres(handle.db as never, { migrationsFolder: folder });
}

describe("the NOTIFY function tollgate_notify_change()", () => {
  const latest = latestBody();

  test("a fresh database has the body of the migration that last writes it, called by the triggers of 0001", async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    // Released files last wrote a body in 0010: databases past it hold that body, the others get it from here.
    expect(latest.index).toBeGreaterThanOrEqual(journal.entries.findIndex((entry) => entry.tag === "0010_budget_periods_spend_alerts"));
    expect(await installed(database.handle)).toEqual({ body: latest.body, triggers: TRIGGERS });
  });

  // A database that last migrated before that migration holds whatever body an earlier release wrote (0001's
  // up to 0006, 0007's up to 0009); these files no longer carry those, so a stand-in plays the older body.
  test("a database that last migrated just before it, with an older body, ends with the same body", async () => {
    const handle = await emptyDatabase();
    await migrateFirst(handle, latest.index);
    await handle.execute(`CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('tollgate_invalidate', '{"body":"an older release''s"}');
  RETURN NULL;
END;
$$ LANGUAGE plpgsql`);
    await migrateDatabase(handle);
    expect(await installed(handle)).toEqual({ body: latest.body, triggers: TRIGGERS });
  });
});
