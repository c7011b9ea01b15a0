import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { type SharedPglite, ThreadedPglite } from "./pglite-thread";
import * as schema from "./schema";

export type { SharedPglite } from "./pglite-thread";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

/** Called for every notification; `onConnect` runs on each (re)connection of the listener. */
export interface ListenHandlers {
  onNotify: (payload: string) => void;
  onConnect: () => void;
}

export interface DatabaseHandle {
  db: Database;
  kind: "postgres" | "pglite";
  /** The connection URL (postgres only). */
  url?: string;
  /** Subscribes to a NOTIFY channel. Returns a function that unsubscribes. */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
  /** Runs a raw SQL string (migrations, tests, admin tasks). */
  execute(sqlText: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Embedded only: this database for another thread of this process (the write-behind's), which opens it
   * with `openSharedPglite`. Transfer `port` with the message that carries it.
   */
  share?(): SharedPglite;
}

export interface OpenDatabaseOptions {
  /** postgres://... ; when absent an embedded PGlite is opened in `dataDir`. */
  databaseUrl?: string;
  /** Folder of the embedded database; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** Connection pool size for Postgres. */
  poolSize?: number;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options.dataDir ?? "./data");
}

/** A Postgres handle (synchronous: postgres.js connects on the first query). */
export function openPostgres(url: string, poolSize: number): DatabaseHandle {
  const client = postgres(url, {
    max: poolSize,
    onnotice: () => {},
  });
  const db = drizzlePostgres(client, { schema }) as unknown as Database;
  return {
    db,
    kind: "postgres",
    url,
    async listen(channel, handlers) {
      const subscription = await client.listen(channel, handlers.onNotify, handlers.onConnect);
      return () => subscription.unlisten();
    },
    async execute(sqlText) {
      await client.unsafe(sqlText);
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/**
 * The embedded server's buffer pool. Postgres' default (128 MB) lives inside PGlite's WASM memory, which never
 * shrinks: 16 MB takes a running gateway from about 280 MB to 160 MB of RSS (measured with 200k log rows);
 * pages beyond it come from the OS page cache. Deployments that need more run on PostgreSQL.
 */
const EMBEDDED_SHARED_BUFFERS = "16MB";

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const startParams = [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];
  let location = dataDir;
  if (!dataDir.startsWith("memory://")) {
    mkdirSync(dataDir, { recursive: true });
    location = join(dataDir, "pgdata");
    // A folder without PG_VERSION has not been through initdb yet.
    if (!existsSync(join(location, "PG_VERSION"))) await ThreadedPglite.initialize(location, startParams);
  }
  const pglite = await ThreadedPglite.open(location, startParams);
  return { ...pgliteHandle(pglite), share: () => pglite.share() };
}

/** A handle on an embedded database that another thread of this process opened and shared. */
export function openSharedPglite(shared: SharedPglite): DatabaseHandle {
  return pgliteHandle(ThreadedPglite.shared(shared));
}

function pgliteHandle(pglite: ThreadedPglite): DatabaseHandle {
  // drizzle's pglite driver calls only query() and transaction() of its client, which ThreadedPglite has.
  const db = drizzlePglite(pglite as never, { schema }) as unknown as Database;
  return {
    db,
    kind: "pglite",
    async listen(channel, handlers) {
      const unsubscribe = await pglite.listen(channel, handlers.onNotify);
      handlers.onConnect();
      return unsubscribe;
    },
    async execute(sqlText) {
      await pglite.exec(sqlText);
    },
    async close() {
      await pglite.close();
    },
  };
}

/** Rows of a `db.execute()` result: postgres.js returns an array, PGlite an object with `rows`. */
export function resultRows(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result as Array<Record<string, unknown>>;
  return ((result as { rows?: Array<Record<string, unknown>> }).rows ?? []) as Array<Record<string, unknown>>;
}
