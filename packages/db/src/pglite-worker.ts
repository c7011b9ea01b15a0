// The thread that owns the process's embedded PGlite instances (see ThreadedPglite). It answers messages by
// id, from the thread that started it and from ports it was given for other threads ("attach"). Each of
// them has its own transactions: one stays open between its "begin" and "end" messages, and only queries
// that name it run inside it (PGlite's lock makes the others wait meanwhile).
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { FromPgliteThread, SerializedError, ToPgliteThread } from "./pglite-thread";

declare const self: Worker;

interface Endpoint {
  postMessage(message: FromPgliteThread): void;
  addEventListener(type: "message", listener: (event: MessageEvent<ToPgliteThread>) => void): void;
  addEventListener(type: "close", listener: () => void): void;
  start?(): void;
  close?(): void;
}

interface OpenTransaction {
  transaction: Transaction;
  end: (commit: boolean) => void;
  ended: Promise<unknown>;
  idle: ReturnType<typeof setTimeout>;
}

/** What one endpoint has open on one database. */
interface Session {
  transactions: Map<number, OpenTransaction>;
  unlisteners: Map<string, () => Promise<void>>;
}

const databases = new Map<number, PGlite>();
/**
 * A transaction left open this long without a statement is rolled back, as Postgres'
 * idle_in_transaction_session_timeout does: PGlite has one connection, and a thread that died between
 * "begin" and "end" (the write-behind's, say) would otherwise hold its lock, and every query, for ever.
 */
const IDLE_IN_TRANSACTION_MS = 60_000;
const rollback = Symbol("rollback");
const keepText = (value: string) => value;

function serialize(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const serialized: SerializedError = { name: error.name, message: error.message };
  for (const [field, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number") serialized[field] = value;
  }
  return serialized;
}

function opened(id: number): PGlite {
  const pglite = databases.get(id);
  if (!pglite) throw new Error("the embedded database is not open");
  return pglite;
}

/** Opens a transaction and resolves once it is open; it ends when "end" arrives (commit or rollback). */
function begin(pglite: PGlite, session: Session, txn: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = false;
    let end: (commit: boolean) => void = () => {};
    const decided = new Promise<boolean>((settle) => (end = settle));
    const ended = pglite
      .transaction(async (transaction) => {
        started = true;
        const idle = setTimeout(() => {
          session.transactions.delete(txn);
          end(false);
        }, IDLE_IN_TRANSACTION_MS);
        session.transactions.set(txn, { transaction, end, ended, idle });
        resolve();
        const commit = await decided;
        clearTimeout(idle);
        if (!commit) throw rollback;
      })
      .catch((error) => {
        if (!started) reject(error);
        if (error !== rollback) throw error;
      })
      .finally(() => session.transactions.delete(txn));
    // "end" awaits it; until then, keep a failed commit from being reported as unhandled.
    ended.catch(() => {});
  });
}

/** Answers the messages of one endpoint. */
function serve(endpoint: Endpoint, primary: boolean): void {
  const sessions = new Map<number, Session>();
  const sessionOf = (database: number) => {
    let session = sessions.get(database);
    if (!session) {
      session = { transactions: new Map(), unlisteners: new Map() };
      sessions.set(database, session);
    }
    return session;
  };

  // Whatever a departing thread left open is rolled back, rather than holding PGlite's lock.
  const release = (database: number) => {
    for (const open of sessions.get(database)?.transactions.values() ?? []) open.end(false);
    sessions.delete(database);
  };

  async function handle(message: ToPgliteThread): Promise<unknown> {
    if (message.type === "open") {
      if (!primary) throw new Error("only the owning thread opens databases");
      const loadDataDir = message.loadDataDir === undefined ? undefined : Bun.file(message.loadDataDir);
      databases.set(message.database, await PGlite.create(message.location, { startParams: message.startParams, loadDataDir }));
      return null;
    }
    if (message.type === "attach") {
      serve(message.port as unknown as Endpoint, false);
      return null;
    }
    if (message.type === "detach") {
      release(message.database);
      if (!primary) setTimeout(() => endpoint.close?.(), 0);
      return null;
    }
    const pglite = opened(message.database);
    const session = sessionOf(message.database);
    const target = (txn: number | undefined): PGlite | Transaction => {
      if (txn === undefined) return pglite;
      const open = session.transactions.get(txn);
      if (!open) throw new Error(`transaction ${txn} is not open (rolled back after ${IDLE_IN_TRANSACTION_MS / 1000} s idle?)`);
      open.idle.refresh();
      return open.transaction;
    };
    switch (message.type) {
      case "query": {
        const parsers = Object.fromEntries(message.rawTypes.map((type) => [type, keepText]));
        return target(message.txn).query(message.sql, message.params, { rowMode: message.rowMode, parsers });
      }
      case "exec":
        return target(message.txn).exec(message.sql);
      case "dump":
        await Bun.write(message.path, await pglite.dumpDataDir("none"));
        return null;
      case "begin":
        return begin(pglite, session, message.txn);
      case "end": {
        const open = session.transactions.get(message.txn);
        if (!open) throw new Error(`transaction ${message.txn} is not open (rolled back after ${IDLE_IN_TRANSACTION_MS / 1000} s idle?)`);
        open.end(message.commit);
        await open.ended;
        return null;
      }
      case "listen": {
        const { channel, database } = message;
        if (!session.unlisteners.has(channel)) {
          const notify = (payload: string) => endpoint.postMessage({ type: "notify", database, channel, payload });
          session.unlisteners.set(channel, await pglite.listen(channel, notify));
        }
        return null;
      }
      case "unlisten": {
        const unlisten = session.unlisteners.get(message.channel);
        session.unlisteners.delete(message.channel);
        await unlisten?.();
        return null;
      }
      case "close":
        if (!primary) throw new Error("only the owning thread closes databases");
        databases.delete(message.database);
        sessions.delete(message.database);
        await pglite.close();
        return null;
    }
  }

  endpoint.addEventListener("message", (event) => {
    const message = event.data;
    handle(message).then(
      (result) => {
        try {
          endpoint.postMessage({ type: "reply", id: message.id, result });
        } catch (error) {
          // A value that cannot cross threads: the caller gets the reason instead of waiting forever.
          endpoint.postMessage({ type: "reply", id: message.id, error: serialize(error) });
        }
      },
      (error) => endpoint.postMessage({ type: "reply", id: message.id, error: serialize(error) }),
    );
  });
  // The thread at the other end of a port ended (it crashed, or was terminated mid-transaction).
  if (!primary) endpoint.addEventListener("close", () => [...sessions.keys()].forEach(release));
  // A port delivers nothing until started (the worker's own scope needs no start).
  endpoint.start?.();
}

serve(self as unknown as Endpoint, true);
