import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs, tokens, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FreshDatabase, freshDatabase, usePostgres } from "../../../../test/helpers/fresh-database";
import { startGateway, waitFor } from "../../../../test/helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { type UsageRecord, UsageWriter, type WrittenUsage } from "./usage-writer";
import { ThreadedUsageWriter, type UsageWorkerSettings } from "./usage-writer-thread";
import type { SpooledUsageSink } from "./spooled-usage-sink";

// On Postgres the worker opens connections of its own; on embedded PGlite it reaches the PGlite thread by a port.

let database: FreshDatabase;
let userId: number;
let tokenId: number;

beforeAll(async () => {
  database = await freshDatabase();
  const [user] = await database.handle.db.insert(users).values({ name: "thread-owner", balance: 1_000_000 }).returning();
  const [token] = await database.handle.db
    .insert(tokens)
    .values({ userId: user!.id, name: "threaded", keyHash: "usage-thread-hash", keyPrefix: "sk-" })
    .returning();
  userId = user!.id;
  tokenId = token!.id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await database?.drop();
}, SETUP_TIMEOUT_MS);

function usageRecord(requestId: string, cost: number): UsageRecord {
  return {
    tokenId,
    userId,
    cost,
    log: {
      createdAt: new Date(),
      requestId,
      userId,
      tokenId,
      tokenName: "threaded",
      endpoint: "chat.completions",
      model: "gpt-thread",
      status: 200,
      latencyMs: 12,
      cost,
      promptTokens: 3,
      completionTokens: 4,
      channelsTried: [1, 2],
    },
  };
}

// Each writer stands for one process: an instance id (its spool's checkpoint row) of its own.
const batching = () => ({ intervalMs: 60_000, maxBufferedLogs: 3, instanceId: `thread-test-${crypto.randomUUID()}` });

/** The test database as the worker reaches it: by URL on Postgres, by a port of the PGlite thread if embedded. */
function workerDatabase(databaseUrl = database.url): UsageWorkerSettings["database"] {
  return databaseUrl ? { url: databaseUrl, poolSize: 1 } : { shared: database.handle.share!() };
}

function threadedWriter(databaseUrl?: string, extra: Partial<UsageWorkerSettings> = {}) {
  const written: WrittenUsage[] = [];
  const logged: string[] = [];
  const settings = { ...batching(), ...extra };
  const writer = new ThreadedUsageWriter({
    settings: { database: workerDatabase(databaseUrl), ...settings },
    onWritten: (usage) => written.push(usage),
    log: (_level, message) => logged.push(message),
    fallback: () => new UsageWriter(database.handle.db, { ...settings, log: () => {}, onWritten: (usage) => written.push(usage) }),
  });
  return { writer, written, logged };
}

describe("the write-behind on a worker thread", () => {
  test("writes what was recorded; the commit reaches onWritten on this thread before flush() resolves", async () => {
    const { writer, written } = threadedWriter();
    writer.record(usageRecord("req_thread_1", 30));
    writer.record(usageRecord("req_thread_2", 12));
    expect(writer.queueDepth).toBe(2);
    await writer.flush();
    expect(writer.queueDepth).toBe(0);
    expect(written).toHaveLength(1);
    expect(written[0]!.tokenDeltas.get(tokenId)).toBe(42);
    expect(written[0]!.userDeltas.get(userId)).toBe(42);
    expect(written[0]!.tokenTotals.get(tokenId)).toBe(42);
    expect(written[0]!.userBalances.get(userId)).toBe(1_000_000 - 42);
    const rows = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
    expect(rows.map((row) => row.requestId).sort()).toEqual(["req_thread_1", "req_thread_2"]);
    expect(rows[0]!.channelsTried).toEqual([1, 2]);

    // stop() writes what is left before the worker goes.
    writer.record(usageRecord("req_thread_3", 1));
    await writer.stop();
    const [token] = await database.handle.db.select().from(tokens).where(eq(tokens.id, tokenId));
    expect(token!.usedQuota).toBe(43);
    expect(written).toHaveLength(2);
  });

  test.if(usePostgres)("a database it cannot reach: flush() rejects, logs stay queued up to the buffer, and the drops are counted", async () => {
    // A port nobody listens on.
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const url = new URL(database.url!);
    url.port = String(port);
    const { writer, written } = threadedWriter(url.toString());
    for (let index = 0; index < 5; index++) writer.record(usageRecord(`req_unreachable_${index}`, 1));
    await expect(writer.flush()).rejects.toThrow();
    expect(written).toHaveLength(0);
    // The buffer holds 3 logs: the 2 oldest were dropped, and the main thread hears of it shortly.
    const deadline = Date.now() + 5_000;
    while (writer.droppedLogs < 2 && Date.now() < deadline) await Bun.sleep(20);
    expect(writer.droppedLogs).toBe(2);
    expect(writer.queueDepth).toBe(3);
    await writer.stop(0);
  });

  test("the worker writes a full buffer without waiting for its tick (writeAtLogs crosses to it)", async () => {
    const { writer, written } = threadedWriter(undefined, { writeAtLogs: 2 });
    try {
      writer.record(usageRecord("req_thread_size_1", 5));
      writer.record(usageRecord("req_thread_size_2", 6));
      // No flush(): the worker's tick is a minute away, so only the size sends these two.
      await waitFor(() => written.length === 1, "the size-triggered write");
      expect(written[0]!.tokenDeltas.get(tokenId)).toBe(11);
      const rows = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.requestId, "req_thread_size_2"));
      expect(rows).toHaveLength(1);
    } finally {
      await writer.stop();
    }
  });

  test("if the worker dies, the main thread takes over: the failure is logged and later records are still written", async () => {
    const { writer, logged } = threadedWriter();
    // A message the worker cannot handle makes it throw outside any handler that could catch it.
    (writer as unknown as { worker: Worker }).worker.postMessage({ type: "lines", text: null });
    const deadline = Date.now() + 5_000;
    while (logged.length === 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(logged).toEqual(["usage writer thread failed; writing on the main thread from now on"]);
    writer.record(usageRecord("req_after_takeover", 5));
    await writer.flush();
    const rows = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.requestId, "req_after_takeover"));
    expect(rows).toHaveLength(1);
    await writer.stop();
  });

  test("a gateway writes usage on the thread unless told not to (on Postgres and on embedded PGlite)", async () => {
    const threaded = await startGateway(database.handle);
    const inline = await startGateway(database.handle, { usageWriterThread: false });
    try {
      expect((threaded.services.usage as SpooledUsageSink).writer).toBeInstanceOf(ThreadedUsageWriter);
      expect((inline.services.usage as SpooledUsageSink).writer).toBeInstanceOf(UsageWriter);
    } finally {
      await threaded.stop();
      await inline.stop();
    }
  });
});

describe("the write-behind's stop", () => {
  test("waits for a write already under way, so the database is never closed in the middle of its transaction", async () => {
    const writer = new UsageWriter(database.handle.db, { ...batching(), log: () => {}, onWritten: () => {} });
    writer.record(usageRecord("req_stop_in_flight", 2));
    let written = false;
    const writing = writer.flush().then(() => (written = true));
    // The buffers are empty now (the batch is being written), which is when stop() used to return at once.
    await writer.stop();
    expect(written).toBe(true);
    await writing;
    const rows = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.requestId, "req_stop_in_flight"));
    expect(rows).toHaveLength(1);
  });
});
