import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replayOrphanSpools } from "@tollgate/gateway/accounting/spool-replay";
import { UsageSpool } from "@tollgate/gateway/accounting/usage-spool";
import { type UsageRecord, UsageWriter, type UsageWriterOptions } from "@tollgate/gateway/accounting/usage-writer";
import { writeUsageBatch } from "@tollgate/gateway/accounting/write-usage-batch";
import { requestLogDeadLetters, requestLogs, tokens, usageHourly, usageSpoolCheckpoints, users } from "@tollgate/db";
import { eq, inArray, sql } from "drizzle-orm";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let userId: number;
let tokenId: number;
const spoolDirs: string[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  const [user] = await database.handle.db.insert(users).values({ name: "durable-owner", balance: 10_000_000 }).returning();
  userId = user!.id;
  tokenId = (await newToken("durable")).id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const dir of spoolDirs) rmSync(dir, { recursive: true, force: true });
  await database?.drop();
}, SETUP_TIMEOUT_MS);

async function newToken(name: string) {
  const [token] = await database.handle.db
    .insert(tokens)
    .values({ userId, name, keyHash: `hash-${crypto.randomUUID()}`, keyPrefix: "sk-" })
    .returning();
  return token!;
}

function record(requestId: string, cost: number, log: Partial<UsageRecord["log"]> = {}, forToken = tokenId): UsageRecord {
  return {
    tokenId: forToken,
    userId,
    cost,
    log: {
      createdAt: new Date(),
      requestId,
      userId,
      tokenId: forToken,
      tokenName: "durable",
      endpoint: "chat.completions",
      model: "gpt-durable",
      status: 200,
      latencyMs: 5,
      cost,
      promptTokens: 1,
      completionTokens: 1,
      ...log,
    },
  };
}

function writer(log: string[] = []) {
  return new UsageWriter(database.handle.db, {
    intervalMs: 60_000,
    maxBufferedLogs: 1000,
    instanceId: `durability-${crypto.randomUUID()}`,
    log: (message, fields) => log.push(`${message} ${JSON.stringify(fields ?? {})}`),
    onWritten: () => {},
  });
}

async function usedQuota(id: number): Promise<number> {
  const [row] = await database.handle.db.select({ used: tokens.usedQuota }).from(tokens).where(eq(tokens.id, id));
  return row!.used;
}

async function logsOf(id: number) {
  return database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, id));
}

function spoolDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-spool-"));
  spoolDirs.push(dir);
  return dir;
}

describe("a write-behind that cannot be poisoned", () => {
  test("a NUL byte or a 3,000-character model is stored cleaned, and the rest of the batch with it", async () => {
    const token = await newToken("poison-text");
    const usage = writer();
    usage.record(record("req_nul", 10, { model: "gpt\u0000x" }, token.id));
    usage.record(record("req_long", 20, { model: "m".repeat(3000) }, token.id));
    usage.record(record("req_plain", 30, {}, token.id));
    await usage.flush();
    const rows = await logsOf(token.id);
    expect(rows.map((row) => row.requestId).sort()).toEqual(["req_long", "req_nul", "req_plain"]);
    expect(rows.find((row) => row.requestId === "req_nul")!.model).toBe("gptx");
    expect(rows.find((row) => row.requestId === "req_long")!.model).toBe("m".repeat(256));
    expect(await usedQuota(token.id)).toBe(60);
    const rollups = await database.handle.db.select().from(usageHourly).where(eq(usageHourly.tokenId, token.id));
    expect(rollups.reduce((sum, row) => sum + row.requests, 0)).toBe(3);
    expect(usage.deadLetters).toBe(0);
  });

  test("every request_logs column is stored as recorded, to the millisecond and the micro-USD", async () => {
    const token = await newToken("every-column");
    const usage = writer();
    const createdAt = new Date("2026-11-27T10:11:12.345Z");
    const full: UsageRecord["log"] = {
      createdAt,
      requestId: 'req_every "column" \\ é 🌍',
      userId,
      tokenId: token.id,
      tokenName: "name with \"quotes\", {braces} and, commas",
      endpoint: "images.generations",
      model: "m{1,2}",
      requestedModel: "NULL",
      upstreamModel: "upstream-model",
      channelId: 7,
      channelsTried: [3, 5, 7],
      promptTokens: 2_000_000_000,
      completionTokens: 42,
      cachedTokens: 11,
      cacheWriteTokens: 5,
      cacheWrite1hTokens: 2,
      usageEstimated: true,
      billedUnit: "image",
      billedQuantity: 0.1 + 0.2,
      cost: 9_007_199_254_740_991,
      cacheSavings: -123,
      status: 499,
      errorCode: "client_closed",
      latencyMs: 1234,
      firstTokenMs: 56,
      clientIp: "2001:db8::1",
      stream: true,
      responseBytes: 65_536,
      responseCache: "hit",
    };
    usage.record({ tokenId: token.id, userId, cost: 0, log: full });
    await usage.flush();
    const [row] = await logsOf(token.id);
    const { id, ...stored } = row!;
    expect(id).toBeGreaterThan(0);
    expect(stored).toEqual({ ...full, createdAt, tokenId: token.id } as typeof stored);
    expect(stored.createdAt.getTime()).toBe(createdAt.getTime());
  });

  test("columns a record leaves out get their defaults; a lone surrogate is stored as U+FFFD", async () => {
    const token = await newToken("defaults");
    const usage = writer();
    const before = Date.now();
    usage.record({
      tokenId: token.id,
      userId,
      cost: 0,
      log: { requestId: "req_sparse", endpoint: "chat.completions", model: "half \ud800 pair", status: 200, latencyMs: 1, tokenId: token.id, userId },
    });
    await usage.flush();
    const [row] = await logsOf(token.id);
    expect(row).toMatchObject({
      model: "half \ufffd pair",
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      usageEstimated: false,
      billedUnit: "token",
      billedQuantity: null,
      cost: 0,
      cacheSavings: 0,
      stream: false,
      channelsTried: null,
      firstTokenMs: null,
      responseBytes: null,
    });
    expect(row!.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(usage.deadLetters).toBe(0);
  });

  test("a row the database refuses is set aside in the dead letters; its batch and every record's spend are written", async () => {
    const token = await newToken("poison-number");
    const logged: string[] = [];
    const usage = writer(logged);
    usage.record(record("req_before", 100, {}, token.id));
    // An upstream reporting an absurd token count: out of range for the integer column.
    usage.record(record("req_refused", 200, { promptTokens: 5_000_000_000, tokenName: "VALUE-NEVER-LOGGED" }, token.id));
    usage.record(record("req_after", 300, {}, token.id));
    await usage.flush();
    expect((await logsOf(token.id)).map((row) => row.requestId).sort()).toEqual(["req_after", "req_before"]);
    expect(await usedQuota(token.id)).toBe(600);
    const dead = await database.handle.db.select().from(requestLogDeadLetters).where(eq(requestLogDeadLetters.requestId, "req_refused"));
    expect(dead).toHaveLength(1);
    expect(dead[0]!.error).toStartWith("22003");
    expect(JSON.parse(dead[0]!.row)).toMatchObject({ requestId: "req_refused", promptTokens: 5_000_000_000, cost: 200 });
    expect(usage.deadLetters).toBe(1);
    expect(usage.queueDepth).toBe(0);
    expect(usage.failingSince).toBeNull();
    // Logged once, with the request id, never the row's values.
    expect(logged.filter((line) => line.includes("dead_letters") && line.includes("req_refused"))).toHaveLength(1);
    expect(logged.join("\n")).not.toContain("VALUE-NEVER-LOGGED");

    // The writer is not stuck: the next batch goes through as usual.
    usage.record(record("req_next", 1, {}, token.id));
    await usage.flush();
    expect((await logsOf(token.id)).map((row) => row.requestId)).toContain("req_next");
  });

  test("a batch committed by an attempt whose answer was lost is not applied again", async () => {
    const token = await newToken("lost-answer");
    const spoolId = `lost-answer-${crypto.randomUUID()}`;
    const batch = {
      logs: [record("req_once", 500, {}, token.id).log],
      tokenDeltas: new Map([[token.id, 500]]),
      userDeltas: new Map([[userId, 500]]),
      lastSeq: 7,
    };
    const options = { spoolId, rowsPerInsert: 100, log: () => {} };
    const first = await writeUsageBatch(database.handle.db, (committed) => (batch.lastSeq > committed ? batch : null), options);
    const second = await writeUsageBatch(database.handle.db, (committed) => (batch.lastSeq > committed ? batch : null), options);
    expect(first.applied).toBe(true);
    expect(second.applied).toBe(false);
    expect(second.spoolSeq).toBe(7);
    expect(await logsOf(token.id)).toHaveLength(1);
    expect(await usedQuota(token.id)).toBe(500);
  });
});

/** A started writer whose timer is a minute away, so that only the buffer's size makes it write. */
function startedWriter(writeAtLogs: number | null, onWritten: UsageWriterOptions["onWritten"] = () => {}) {
  const usage = new UsageWriter(database.handle.db, {
    intervalMs: 60_000,
    maxBufferedLogs: 1000,
    writeAtLogs,
    instanceId: `durability-${crypto.randomUUID()}`,
    log: () => {},
    onWritten,
  });
  usage.start();
  return usage;
}

/** Records calls `from` to `to` (excluded) of `cost` each; then, 300 ms later, the token's rows written without a flush. */
async function recordAndWait(usage: UsageWriter, forToken: number, prefix: string, from: number, to: number, cost: number) {
  for (let index = from; index < to; index++) usage.record(record(`${prefix}${index}`, cost, {}, forToken));
  await Bun.sleep(300);
  return logsOf(forToken);
}

describe("batches under load", () => {
  test("a buffer that reaches its size is written without waiting for the timer; a smaller one waits for the tick or stop()", async () => {
    const token = await newToken("batched");
    const commits: number[] = [];
    const usage = startedWriter(5, (written) => commits.push(written.tokenDeltas.get(token.id) ?? 0));
    try {
      expect(await recordAndWait(usage, token.id, "req_batched_", 0, 4, 10)).toHaveLength(0);
      usage.record(record("req_batched_4", 10, {}, token.id));
      const rows = await waitFor(async () => {
        const found = await logsOf(token.id);
        return found.length === 5 && found;
      }, "the batch of five");
      expect(rows.map((row) => row.requestId).sort()).toEqual(["req_batched_0", "req_batched_1", "req_batched_2", "req_batched_3", "req_batched_4"]);
      expect(await usedQuota(token.id)).toBe(50);
      expect(commits).toEqual([50]);
      expect(await recordAndWait(usage, token.id, "req_batched_", 5, 8, 10)).toHaveLength(5);
    } finally {
      await usage.stop();
    }
    expect(await logsOf(token.id)).toHaveLength(8);
    expect(await usedQuota(token.id)).toBe(80);
  });

  test("writeAtLogs null (embedded PGlite's setting) leaves a full buffer to the tick", async () => {
    const token = await newToken("tick-only");
    const usage = startedWriter(null);
    try {
      expect(await recordAndWait(usage, token.id, "req_tick_only_", 0, 1200, 1)).toHaveLength(0);
    } finally {
      await usage.stop();
    }
    expect(await logsOf(token.id)).toHaveLength(1000);
    expect(await usedQuota(token.id)).toBe(1200);
  });
});

describe("the usage spool", () => {
  test("a spool left by a dead process is replayed exactly once, past its checkpoint, even by two replayers at once", async () => {
    const token = await newToken("replay");
    const dir = spoolDir();
    const spoolId = `dead-${crypto.randomUUID()}`;
    const spool = new UsageSpool({ dir, spoolId, syncMs: 10, log: () => {} });
    spool.open();
    const records = [1, 2, 3, 4, 5].map((index) => record(`req_spooled_${index}`, index * 1000, {}, token.id));
    for (const item of records) spool.append(item);
    expect(records.map((item) => item.seq)).toEqual([1, 2, 3, 4, 5]);
    // The process had written the first two before it died.
    const committed = records.slice(0, 2);
    await writeUsageBatch(
      database.handle.db,
      () => ({
        logs: committed.map((item) => item.log),
        tokenDeltas: new Map([[token.id, 3000]]),
        userDeltas: new Map([[userId, 3000]]),
        lastSeq: 2,
      }),
      { spoolId, rowsPerInsert: 100, log: () => {} },
    );
    // Closing without having committed everything leaves the segments (and no lock: the owner is gone).
    spool.close();
    expect(readdirSync(dir).some((name) => name.endsWith(".jsonl"))).toBe(true);
    expect(readdirSync(dir).some((name) => name.endsWith(".lock"))).toBe(false);
    // A process killed while its next segment was made ready leaves that file too (zeros, no record).
    writeFileSync(join(dir, `${spoolId}.next`), new Uint8Array(4096));

    const replay = () => replayOrphanSpools({ db: database.handle.db, dir, ownSpoolId: "someone-else", rowsPerInsert: 100, log: () => {} });
    const [first, second] = await Promise.all([replay(), replay()]);
    expect(first + second).toBe(3);
    const rows = await logsOf(token.id);
    expect(rows.map((row) => row.requestId).sort()).toEqual([1, 2, 3, 4, 5].map((index) => `req_spooled_${index}`));
    expect(await usedQuota(token.id)).toBe(15_000);
    expect(readdirSync(dir)).toEqual([]);
    const marks = await database.handle.db.select().from(usageSpoolCheckpoints).where(eq(usageSpoolCheckpoints.spoolId, spoolId));
    // The mark stays, so that a replayer that read the files before they went still finds them written.
    expect(marks.map((mark) => mark.lastSeq)).toEqual([5]);
    // Nothing is left to replay a second time.
    expect(await replay()).toBe(0);
    expect(await usedQuota(token.id)).toBe(15_000);
  });

  test("the spool of a process that is still running is left alone", async () => {
    const token = await newToken("alive");
    const dir = spoolDir();
    const spool = new UsageSpool({ dir, spoolId: `alive-${crypto.randomUUID()}`, syncMs: 10, log: () => {} });
    spool.open();
    spool.append(record("req_alive", 1, {}, token.id));
    // Its lock names this test process, which is alive.
    expect(await replayOrphanSpools({ db: database.handle.db, dir, ownSpoolId: "someone-else", rowsPerInsert: 100, log: () => {} })).toBe(0);
    expect(await logsOf(token.id)).toHaveLength(0);
    spool.close();
  });

  test("a spool whose records are all committed is deleted when its process stops; one with unwritten records is kept", async () => {
    const dir = spoolDir();
    const gateway = await startGateway(database.handle, { usageSpoolDir: dir });
    const token = await newToken("gateway-spool");
    gateway.services.usage.record(record("req_through_gateway", 42, {}, token.id));
    expect(readdirSync(dir).filter((name) => name.endsWith(".jsonl"))).toHaveLength(1);
    await gateway.stop();
    expect(await usedQuota(token.id)).toBe(42);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("readiness and the write-behind", () => {
  let gateway: GatewayUnderTest;

  afterAll(async () => {
    await database.handle.db.execute(sql`alter table if exists request_logs_away rename to request_logs`).catch(() => {});
    await gateway?.stop();
  });

  test("/readyz answers 503 once usage writes have failed for longer than the stall limit, and 200 when they work again", async () => {
    gateway = await startGateway(database.handle, { usageWriteStallMs: 300, usageWriterThread: false });
    const ready = async () => {
      const response = await gateway.handle(new Request("http://gateway.test/readyz"));
      return { status: response.status, body: (await response.json()) as { usageWrites: boolean; database: boolean } };
    };
    expect((await ready()).status).toBe(200);
    const token = await newToken("stalled");
    // Writes fail while the table is away (an error no retry of the same rows can fix, and not a row's fault).
    await database.handle.db.execute(sql`alter table request_logs rename to request_logs_away`);
    gateway.services.usage.record(record("req_stalled", 9, {}, token.id));
    const refused = await waitFor(async () => {
      const answer = await ready();
      return answer.status === 503 ? answer : null;
    }, "readyz to turn 503");
    expect(refused.body).toMatchObject({ database: true, usageWrites: false });
    await database.handle.db.execute(sql`alter table request_logs_away rename to request_logs`);
    await waitFor(async () => (await ready()).status === 200, "readyz to turn 200 again", 60_000);
    const rows = await database.handle.db.select().from(requestLogs).where(inArray(requestLogs.requestId, ["req_stalled"]));
    expect(rows).toHaveLength(1);
    expect(await usedQuota(token.id)).toBe(9);
  }, SETUP_TIMEOUT_MS);
});
