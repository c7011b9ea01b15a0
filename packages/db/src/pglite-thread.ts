import { PendingReplies } from "@tollgate/shared";

/** What the PGlite thread is asked to do, for one of its databases; `txn` runs a query inside that open transaction. */
export type ToPgliteThread = { id: number; database: number } & (
  /** `loadDataDir`: the path of a data folder's tarball (PGlite's dumpDataDir) to start from instead of initdb. */
  | { type: "open"; location: string; startParams: string[]; loadDataDir?: string }
  /** Writes the database's data folder as a tarball to `path` (PGlite's dumpDataDir, uncompressed). */
  | { type: "dump"; path: string }
  | { type: "query"; sql: string; params: unknown[]; rowMode?: "array" | "object"; rawTypes: number[]; txn?: number }
  | { type: "exec"; sql: string; txn?: number }
  | { type: "begin"; txn: number }
  | { type: "end"; txn: number; commit: boolean }
  | { type: "listen"; channel: string }
  | { type: "unlisten"; channel: string }
  | { type: "close" }
  /** A shared handle is done: the port stops being served. */
  | { type: "detach" }
  /** Serves this database on `port` too, for another thread (e.g. the write-behind's). */
  | { type: "attach"; port: MessagePort }
);

/** A Postgres error's fields (code, detail, constraint...), which survive the trip between threads. */
export type SerializedError = { message: string; name: string } & Record<string, string | number | undefined>;

export type FromPgliteThread =
  | { type: "reply"; id: number; result?: unknown; error?: SerializedError }
  | { type: "notify"; database: number; channel: string; payload: string };

/** The error a query failed with on the PGlite thread, with Postgres' fields (e.g. `code` 23505) kept. */
export class PgliteThreadError extends Error {
  [field: string]: unknown;
  constructor(serialized: SerializedError) {
    super(serialized.message);
    for (const [field, value] of Object.entries(serialized)) if (field !== "message" && field !== "stack") this[field] = value;
    this.name = serialized.name;
  }
}

export interface PgliteQueryOptions {
  rowMode?: "array" | "object";
  /**
   * Functions cannot cross threads, so only the type ids are sent and the thread returns those types as
   * their text. That is what drizzle's parsers do (dates, timestamps, intervals, numeric arrays); a parser
   * that does anything else would not run.
   */
  parsers?: Record<number, unknown>;
}

interface QueryClient {
  query(sql: string, params?: unknown[], options?: PgliteQueryOptions): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
}

/** Where requests go: the PGlite worker itself, or a port it serves for another thread. */
interface Endpoint {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
  ref?(): void;
  unref?(): void;
  terminate?(): void;
}

/** Requests to the PGlite thread and their answers, matched by id (see PendingReplies). */
class PgliteConnection {
  private readonly replies: PendingReplies<unknown>;
  /** NOTIFY callbacks by database. */
  readonly notifications = new Map<number, (channel: string, payload: string) => void>();
  failure: Error | null = null;

  constructor(private readonly endpoint: Endpoint) {
    this.replies = new PendingReplies(endpoint);
    endpoint.unref?.();
    endpoint.onmessage = (event) => this.receive(event.data as FromPgliteThread);
  }

  request(message: DistributiveOmit<ToPgliteThread, "id">, transfer?: Transferable[]): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    return this.replies.expect((id) => this.endpoint.postMessage({ ...message, id }, transfer));
  }

  private receive(message: FromPgliteThread): void {
    if (message.type === "notify") {
      this.notifications.get(message.database)?.(message.channel, message.payload);
      return;
    }
    this.replies.settle(message.id, message.error ? { error: new PgliteThreadError(message.error) } : { value: message.result });
  }

  /** Ends the thread (a worker endpoint): its memory, PGlite's included, goes back to the system. */
  terminate(): void {
    this.endpoint.terminate?.();
  }

  fail(error: Error): void {
    this.failure = error;
    this.replies.rejectAll(error);
  }
}

/**
 * The thread that runs the process's embedded databases. One thread serves every handle, so PGlite's
 * WebAssembly is compiled once per process, not once per database (tests open dozens).
 */
function startPgliteThread(shared = true): PgliteConnection {
  // The DOM typings of Worker lack ref()/unref(); Bun's own interface has them.
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href) as unknown as Bun.Worker;
  const connection = new PgliteConnection(worker as unknown as Endpoint);
  worker.onerror = (event) => {
    connection.fail(new Error(`the embedded database thread failed: ${event.message}`));
    if (shared && thread === connection) thread = null;
  };
  return connection;
}

/** A database of the PGlite thread, as another thread reaches it (see ThreadedPglite.share). */
export interface SharedPglite {
  port: MessagePort;
  database: number;
}

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

let thread: PgliteConnection | null = null;
let nextDatabase = 1;

/**
 * An embedded database on the PGlite thread. PGlite is Postgres compiled to WebAssembly and runs on the
 * thread that calls it: on the gateway's, the write-behind's inserts (a few milliseconds per batch) stalled
 * every request in flight. This client speaks the part of PGlite's interface that drizzle's pglite driver
 * uses (query, transaction), plus exec and listen, and sends each call to the thread that owns the instance.
 * A transaction holds PGlite's own lock there, so other queries wait for it, as in process.
 */
export class ThreadedPglite implements QueryClient {
  private nextTransaction = 1;
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();

  private constructor(
    private readonly thread: PgliteConnection,
    private readonly database: number,
    /** False for a shared handle: closing it lets go of the port, not of the database. */
    private readonly owner: boolean,
  ) {
    thread.notifications.set(database, (channel, payload) => {
      for (const callback of this.listeners.get(channel) ?? []) callback(payload);
    });
  }

  /**
   * Creates a new database folder on a thread of its own, then ends that thread. Postgres' initdb grows
   * PGlite's WebAssembly memory to about 900 MB, and WebAssembly memory never shrinks: done on the thread
   * that serves the database, a gateway's first start would hold some 600 MB for its lifetime, against about
   * 160 MB when it opens an existing folder. `prepare` runs on the new database before that thread ends
   * (the server's migrations: the first start's schema grows that memory by another ~20 MB).
   */
  static async initialize(location: string, startParams: string[], prepare?: (pglite: ThreadedPglite) => Promise<void>): Promise<void> {
    const initializer = startPgliteThread(false);
    try {
      await initializer.request({ type: "open", database: 0, location, startParams });
      if (prepare) await prepare(new ThreadedPglite(initializer, 0, true));
      await initializer.request({ type: "close", database: 0 });
    } finally {
      initializer.terminate();
    }
  }

  /**
   * Opens the database (`memory://` or a pgdata folder) on the PGlite thread, started on first use; from the
   * tarball at `loadDataDir` (see `dump`) when given.
   */
  static async open(location: string, startParams: string[], loadDataDir?: string): Promise<ThreadedPglite> {
    thread ??= startPgliteThread();
    const database = nextDatabase++;
    await thread.request({ type: "open", database, location, startParams, loadDataDir });
    return new ThreadedPglite(thread, database, true);
  }

  /**
   * This database, reachable from another thread: pass the result to `ThreadedPglite.shared` there,
   * transferring its port. The port's requests wait in it until the PGlite thread has taken it on.
   */
  share(): SharedPglite {
    const channel = new MessageChannel();
    // Fails only with the thread itself, which every request on the port then reports.
    this.thread.request({ type: "attach", database: this.database, port: channel.port1 }, [channel.port1]).catch(() => {});
    return { port: channel.port2, database: this.database };
  }

  /** The client of a database another thread shared with this one. */
  static shared(shared: SharedPglite): ThreadedPglite {
    return new ThreadedPglite(new PgliteConnection(shared.port as unknown as Endpoint), shared.database, false);
  }

  query(sql: string, params: unknown[] = [], options: PgliteQueryOptions = {}): Promise<unknown> {
    return this.runQuery(sql, params, options);
  }

  exec(sql: string): Promise<unknown> {
    return this.thread.request({ type: "exec", database: this.database, sql });
  }

  /** Writes this database's data folder as a tarball to `path`, which `open` can start from. */
  async dump(path: string): Promise<void> {
    await this.thread.request({ type: "dump", database: this.database, path });
  }

  /** Runs `callback` in one transaction: committed if it resolves, rolled back (and rethrown) if it throws. */
  async transaction<T>(callback: (transaction: QueryClient) => Promise<T>): Promise<T> {
    const txn = this.nextTransaction++;
    const { database } = this;
    await this.thread.request({ type: "begin", database, txn });
    const inside: QueryClient = {
      query: (sql, params = [], options = {}) => this.runQuery(sql, params, options, txn),
      exec: (sql) => this.thread.request({ type: "exec", database, sql, txn }),
    };
    let result: T;
    try {
      result = await callback(inside);
    } catch (error) {
      await this.thread.request({ type: "end", database, txn, commit: false }).catch(() => {});
      throw error;
    }
    await this.thread.request({ type: "end", database, txn, commit: true });
    return result;
  }

  /** Calls `callback` with each NOTIFY payload on `channel`; resolves to a function that stops it. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    let callbacks = this.listeners.get(channel);
    if (!callbacks) {
      callbacks = new Set();
      this.listeners.set(channel, callbacks);
      await this.thread.request({ type: "listen", database: this.database, channel });
    }
    callbacks.add(callback);
    return async () => {
      const current = this.listeners.get(channel);
      if (!current?.delete(callback) || current.size > 0) return;
      this.listeners.delete(channel);
      await this.thread.request({ type: "unlisten", database: this.database, channel }).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.thread.notifications.delete(this.database);
    this.listeners.clear();
    await this.thread.request({ type: this.owner ? "close" : "detach", database: this.database });
  }

  private runQuery(sql: string, params: unknown[], options: PgliteQueryOptions, txn?: number): Promise<unknown> {
    const rawTypes = options.parsers ? Object.keys(options.parsers).map(Number) : [];
    return this.thread.request({ type: "query", database: this.database, sql, params, rowMode: options.rowMode, rawTypes, txn });
  }
}
