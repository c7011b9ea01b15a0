// The thread that owns the process's embedded PGlite instances (see ThreadedPglite). Messages are answered by
// id; a transaction stays open between its "begin" and "end" messages, and only queries that name it run
// inside it.
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { FromPgliteThread, SerializedError, ToPgliteThread } from "./pglite-thread";

declare const self: Worker;

interface OpenDatabase {
  pglite: PGlite;
  transactions: Map<number, { transaction: Transaction; end: (commit: boolean) => void; ended: Promise<unknown> }>;
  unlisteners: Map<string, () => Promise<void>>;
}

const databases = new Map<number, OpenDatabase>();
const rollback = Symbol("rollback");
const keepText = (value: string) => value;

const send = (message: FromPgliteThread) => self.postMessage(message);

function serialize(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const serialized: SerializedError = { name: error.name, message: error.message };
  for (const [field, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number") serialized[field] = value;
  }
  return serialized;
}

function opened(id: number): OpenDatabase {
  const database = databases.get(id);
  if (!database) throw new Error("the embedded database is not open");
  return database;
}

/** The open transaction a message names, or the instance itself. */
function target(database: OpenDatabase, txn: number | undefined): PGlite | Transaction {
  if (txn === undefined) return database.pglite;
  const open = database.transactions.get(txn);
  if (!open) throw new Error(`transaction ${txn} is not open`);
  return open.transaction;
}

/** Opens a transaction and resolves once it is open; it ends when "end" arrives (commit or rollback). */
function begin(database: OpenDatabase, txn: number): Promise<void> {
  const { transactions } = database;
  return new Promise((resolve, reject) => {
    let opened = false;
    let end: (commit: boolean) => void = () => {};
    const decided = new Promise<boolean>((settle) => (end = settle));
    const ended = database.pglite
      .transaction(async (transaction) => {
        opened = true;
        transactions.set(txn, { transaction, end, ended });
        resolve();
        if (!(await decided)) throw rollback;
      })
      .catch((error) => {
        if (!opened) reject(error);
        if (error !== rollback) throw error;
      })
      .finally(() => transactions.delete(txn));
    // Not yet awaited by anyone: "end" does. Keep a rejection from being reported as unhandled meanwhile.
    ended.catch(() => {});
  });
}

async function handle(message: ToPgliteThread): Promise<unknown> {
  if (message.type === "open") {
    const pglite = await PGlite.create(message.location, { startParams: message.startParams });
    databases.set(message.database, { pglite, transactions: new Map(), unlisteners: new Map() });
    return null;
  }
  const database = opened(message.database);
  switch (message.type) {
    case "query": {
      const parsers = Object.fromEntries(message.rawTypes.map((type) => [type, keepText]));
      return target(database, message.txn).query(message.sql, message.params, { rowMode: message.rowMode, parsers });
    }
    case "exec":
      return target(database, message.txn).exec(message.sql);
    case "begin":
      return begin(database, message.txn);
    case "end": {
      const open = database.transactions.get(message.txn);
      if (!open) throw new Error(`transaction ${message.txn} is not open`);
      open.end(message.commit);
      await open.ended;
      return null;
    }
    case "listen": {
      const { channel } = message;
      if (!database.unlisteners.has(channel)) {
        const notify = (payload: string) => send({ type: "notify", database: message.database, channel, payload });
        database.unlisteners.set(channel, await database.pglite.listen(channel, notify));
      }
      return null;
    }
    case "unlisten": {
      const unlisten = database.unlisteners.get(message.channel);
      database.unlisteners.delete(message.channel);
      await unlisten?.();
      return null;
    }
    case "close": {
      databases.delete(message.database);
      await database.pglite.close();
      return null;
    }
  }
}

self.addEventListener("message", (event: MessageEvent<ToPgliteThread>) => {
  const message = event.data;
  handle(message).then(
    (result) => {
      try {
        send({ type: "reply", id: message.id, result });
      } catch (error) {
        // A value that cannot cross threads: the caller gets the reason instead of waiting forever.
        send({ type: "reply", id: message.id, error: serialize(error) });
      }
    },
    (error) => send({ type: "reply", id: message.id, error: serialize(error) }),
  );
});
