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
  /**
   * Postgres only: drops every LISTEN connection of this handle without waiting for it and subscribes again
   * on a new one (`onConnect` runs once it listens), for a connection that stopped delivering without
   * closing. Embedded PGlite has no connection to stall, and no such method.
   */
  reconnectListeners?(): void;
  /** Runs a raw SQL string (migrations, tests, admin tasks). */
  execute(sqlText: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Embedded only: writes this database's data folder as a tarball to `path`, which `openDatabase`'s
   * `loadDataDir` starts a new in-memory database from (tests clone one migrated template that way).
   */
  dumpDataDir?(path: string): Promise<void>;
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
  /**
   * Embedded only: run on a new data folder on the throwaway thread that creates it (the server's
   * migrations), whose WebAssembly memory goes with it, rather than on the thread that then serves it.
   */
  prepareNew?: (handle: DatabaseHandle) => Promise<void>;
  /**
   * Embedded `memory://` only: the path of a tarball written by `dumpDataDir`, to start from instead of an
   * empty database: loading one takes a tenth of the second or so that initdb does.
   */
  loadDataDir?: string;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.poolSize ?? 10);
  return openPglite(options.dataDir ?? "./data", options.prepareNew, options.loadDataDir);
}

/**
 * Connection settings for every postgres.js client. postgres.js waits 30 s for a connection by default, and
 * reopens a closed one only after a back-off that grows 3x with each failure (pool-wide, reset by a success)
 * up to 20 s: during an outage a query could wait that long for an attempt that then fails at once with
 * ECONNREFUSED, and after it the pool noticed the database was back only that late. Here a connection gets
 * 5 s, and the back-off stops at 2 s.
 */
const connectionOptions = {
  connect_timeout: 5,
  backoff: (retries: number) => (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, 2),
  onnotice: () => {},
};

interface Subscription {
  channel: string;
  handlers: ListenHandlers;
  /** A client of its own, so that its one connection can be dropped and opened again (reconnectListeners). */
  client: postgres.Sql;
}

/** A Postgres handle (synchronous: postgres.js connects on the first query). */
export function openPostgres(url: string, poolSize: number): DatabaseHandle {
  const client = postgres(url, { ...connectionOptions, max: poolSize });
  const db = drizzlePostgres(client, { schema }) as unknown as Database;
  const subscriptions = new Set<Subscription>();
  // postgres.js listens on one connection of its own, reopened (with LISTEN sent again, then onConnect) when
  // it closes: also while the database is away, and when a first LISTEN failed.
  const subscribe = (subscription: Subscription) =>
    subscription.client.listen(subscription.channel, subscription.handlers.onNotify, subscription.handlers.onConnect);
  const listenerClient = () => postgres(url, { ...connectionOptions, max: 1 });
  return {
    db,
    kind: "postgres",
    url,
    async listen(channel, handlers) {
      const subscription: Subscription = { channel, handlers, client: listenerClient() };
      try {
        await subscribe(subscription);
      } catch (error) {
        await subscription.client.end({ timeout: 0 });
        throw error;
      }
      subscriptions.add(subscription);
      return async () => {
        subscriptions.delete(subscription);
        await subscription.client.end({ timeout: 0 });
      };
    },
    reconnectListeners() {
      for (const subscription of subscriptions) {
        const stalled = subscription.client;
        subscription.client = listenerClient();
        // A failed LISTEN is retried by postgres.js itself, as after any lost connection.
        subscribe(subscription).catch(() => {});
        // Not waited for: a stalled connection would never answer the goodbye.
        stalled.end({ timeout: 0 }).catch(() => {});
      }
    },
    async execute(sqlText) {
      await client.unsafe(sqlText);
    },
    async close() {
      for (const subscription of subscriptions) await subscription.client.end({ timeout: 0 });
      subscriptions.clear();
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

async function openPglite(
  dataDir: string,
  prepareNew?: (handle: DatabaseHandle) => Promise<void>,
  loadDataDir?: string,
): Promise<DatabaseHandle> {
  if (loadDataDir !== undefined && !dataDir.startsWith("memory://")) {
    throw new Error("loadDataDir starts an in-memory database only (dataDir memory://)");
  }
  const startParams = [...PGlite.defaultStartParams, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];
  let location = dataDir;
  if (!dataDir.startsWith("memory://")) {
    mkdirSync(dataDir, { recursive: true });
    location = join(dataDir, "pgdata");
    // A folder without PG_VERSION has not been through initdb yet.
    if (!existsSync(join(location, "PG_VERSION"))) {
      await ThreadedPglite.initialize(location, startParams, prepareNew && ((pglite) => prepareNew(pgliteHandle(pglite))));
    }
  }
  const pglite = await ThreadedPglite.open(location, startParams, loadDataDir);
  return { ...pgliteHandle(pglite), share: () => pglite.share(), dumpDataDir: (path) => pglite.dump(path) };
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
