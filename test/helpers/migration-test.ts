import { afterAll, beforeAll } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, migrationsFolder, openDatabase } from "@tollgate/db";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { type FreshDatabase, freshDatabase } from "./fresh-database";

/**
 * The statement of a migration file (drizzle's statements are split by "--> statement-breakpoint") that
 * contains `marker`: migration tests run a backfill again on rows written as before it.
 */
export function migrationStatement(file: string, marker: string): string {
  const text = readFileSync(join(migrationsFolder, file), "utf8");
  const statement = text.split("--> statement-breakpoint").find((part) => part.includes(marker));
  if (!statement) throw new Error(`migration ${file} has no statement with ${marker}`);
  return statement;
}

/**
 * A fresh database for the tests of the calling describe block, created before them and dropped after
 * them; read `.current` inside a test.
 */
export function freshDatabaseForBlock(): { readonly current: FreshDatabase } {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database?.drop());
  return {
    get current() {
      if (!database) throw new Error("the block's database is made in beforeAll: read it inside a test");
      return database;
    },
  };
}

/** An empty database (no migration applied): in-memory PGlite, or a new database on DATABASE_URL's server. */
export async function emptyDatabase(): Promise<{ handle: DatabaseHandle; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const handle = await openDatabase({ dataDir: "memory://" });
    return { handle, drop: () => handle.close() };
  }
  const name = `tollgate_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
  return {
    handle,
    async drop() {
      await handle.close().catch(() => {});
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/** Applies the first `count` migrations of drizzle/ only, as a database that last migrated back then. */
export async function migrateFirst(handle: DatabaseHandle, count: number): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "tollgate-migrations-"));
  try {
    cpSync(migrationsFolder, folder, { recursive: true });
    const journalPath = join(folder, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: unknown[] };
    journal.entries = journal.entries.slice(0, count);
    writeFileSync(journalPath, JSON.stringify(journal));
    if (handle.kind === "pglite") await migratePglite(handle.db as never, { migrationsFolder: folder });
    else await migratePostgres(handle.db as never, { migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
