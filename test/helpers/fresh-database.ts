import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DatabaseHandle, migrateDatabase, migrationsFolder, openDatabase } from "@tollgate/db";
import postgres from "postgres";

/**
 * True when the suite runs on the Postgres server of DATABASE_URL (CI runs it both ways: embedded PGlite,
 * then Postgres); tests that need a second connection or a second process on one database run only then.
 */
export const usePostgres = Boolean(process.env.DATABASE_URL);

export interface FreshDatabase {
  handle: DatabaseHandle;
  /** postgres:// URL of the fresh database; undefined on embedded PGlite. */
  url?: string;
  /** Opens another handle on the same database (a second gateway instance, the CLI). Postgres only. */
  openAnother(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

const root = join(import.meta.dir, "..", "..");
/** Gitignored (inside node_modules), so a clean clone or a fresh install starts without it. */
const cacheFolder = join(root, "node_modules", ".cache", "tollgate");

/**
 * What a migrated template depends on: every file under drizzle/, and bun.lock (PGlite's version, whose
 * data folder format a template is in). A change to either makes a new template, never a stale one.
 */
function templateKey(): string {
  const hash = createHash("sha256");
  const addFolder = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) addFolder(path);
      else hash.update(`${entry.name}\0`).update(readFileSync(path)).update("\0");
    }
  };
  addFolder(migrationsFolder);
  const lockfile = join(root, "bun.lock");
  if (existsSync(lockfile)) hash.update(readFileSync(lockfile));
  return hash.digest("hex").slice(0, 16);
}

let pgliteFolderTemplate: Promise<string> | undefined;

/**
 * A migrated embedded data folder's `pgdata`, made once for this key by the first test file that needs one:
 * built in a folder of its own, then renamed into place, so parallel test processes never copy a half-made
 * one (the one that loses the race drops its own). Folders of older keys are removed.
 */
function migratedPgliteFolder(): Promise<string> {
  pgliteFolderTemplate ??= (async () => {
    const path = join(cacheFolder, `pglite-folder-${templateKey()}`);
    if (existsSync(path)) return path;
    mkdirSync(cacheFolder, { recursive: true });
    const building = mkdtempSync(join(cacheFolder, "pglite-folder-building-"));
    try {
      // A new folder: prepareNew migrates it on the thread that creates it.
      await (await openDatabase({ dataDir: building, prepareNew: migrateDatabase })).close();
      try {
        renameSync(join(building, "pgdata"), path);
      } catch (error) {
        if (!existsSync(path)) throw error;
      }
    } finally {
      rmSync(building, { recursive: true, force: true });
    }
    // Folders of older migrations are of no further use, nor the tarballs earlier versions of this helper made.
    for (const entry of readdirSync(cacheFolder)) {
      const older = entry.startsWith("pglite-folder-") && !entry.startsWith("pglite-folder-building-") && join(cacheFolder, entry) !== path;
      if (older || entry.startsWith("pglite-template-")) {
        rmSync(join(cacheFolder, entry), { recursive: true, force: true });
      }
    }
    return path;
  })();
  pgliteFolderTemplate.catch(() => (pgliteFolderTemplate = undefined));
  return pgliteFolderTemplate;
}

/**
 * Gives a data folder a migrated embedded database (a copy of one template) when the suite runs embedded,
 * so that a server or CLI process started on it opens a database rather than creating one: creating a
 * folder (initdb in WebAssembly, then every migration) takes 6-15 s a start on this machine. Tests of that
 * creation itself (a fresh install, the data folder's modes) start from an empty folder instead. On
 * Postgres the folder holds no database, and this does nothing, unless `embedded` says the processes run
 * embedded whatever the suite's database (the CLI's tests clear DATABASE_URL).
 */
export async function seedDataFolder(dataDir: string, embedded = !usePostgres): Promise<void> {
  if (!embedded) return;
  const template = await migratedPgliteFolder();
  mkdirSync(dataDir, { recursive: true });
  cpSync(template, join(dataDir, "pgdata"), { recursive: true });
}

/** Arbitrary constant: test processes on one server take turns at creating a template (see MIGRATION_LOCK_ID). */
const TEMPLATE_LOCK_ID = 7_201_912;

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The name of a migrated template database on the server, created by the first test process that needs it,
 * under an advisory lock (parallel processes wait for it rather than race), migrated under a temporary name
 * and renamed when done: a run killed half-way never leaves a half-migrated template behind.
 */
async function migratedPostgresTemplate(admin: postgres.Sql, serverUrl: string): Promise<string> {
  const name = `tollgate_template_${templateKey()}`;
  const exists = async () => (await admin`select 1 from pg_database where datname = ${name}`).length > 0;
  if (await exists()) return name;
  await admin`select pg_advisory_lock(${TEMPLATE_LOCK_ID})`;
  try {
    if (await exists()) return name;
    const building = `${name}_building`;
    await admin.unsafe(`drop database if exists ${building} with (force)`);
    await admin.unsafe(`create database ${building}`);
    const handle = await openDatabase({ databaseUrl: databaseUrl(serverUrl, building), poolSize: 1 });
    try {
      await migrateDatabase(handle);
    } finally {
      await handle.close();
    }
    // A closed connection's server process may linger a moment; a rename needs the database to itself.
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${building}`;
    await admin.unsafe(`alter database ${building} rename to ${name}`);
    return name;
  } finally {
    await admin`select pg_advisory_unlock(${TEMPLATE_LOCK_ID})`;
  }
}

/**
 * A migrated, empty database for one test file: a new database on the server of DATABASE_URL when it is
 * set (CI runs the suite both ways), otherwise an embedded PGlite in a temporary folder. Both are copies of
 * one migrated template (CREATE DATABASE ... TEMPLATE on Postgres, a copied data folder on PGlite) rather
 * than an initdb and every migration per file. A copied folder opens in 0.3-0.4 s on this machine, where an
 * in-memory PGlite loaded from a dumped tarball took 0.8-1.5 s.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), "tollgate-test-db-"));
    await seedDataFolder(dataDir, true);
    const handle = await openDatabase({ dataDir });
    return {
      handle,
      async openAnother() {
        throw new Error("a second connection to an embedded PGlite is not possible; needs DATABASE_URL");
      },
      async drop() {
        await handle.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `tollgate_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const template = await migratedPostgresTemplate(admin, serverUrl);
  await admin.unsafe(`create database ${name} template ${template}`);
  const url = databaseUrl(serverUrl, name);
  const handle = await openDatabase({ databaseUrl: url, poolSize: 5 });
  const others: DatabaseHandle[] = [];
  return {
    handle,
    url,
    async openAnother() {
      const other = await openDatabase({ databaseUrl: url, poolSize: 5 });
      others.push(other);
      return other;
    },
    async drop() {
      for (const other of others) await other.close().catch(() => {});
      await handle.close().catch(() => {});
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end({ timeout: 5 });
    },
  };
}
