import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPostgres, quotaLeases, tokens, users } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { resultRows } from "@tollgate/db";
import { type FreshDatabase, freshDatabase } from "../../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { DatabaseCircuit } from "../database-circuit";
import { GatewayError } from "../errors";
import { DATABASE_CLOCK_SQL, LeaseBook, type LeaseRow } from "./quota-leases";

let database: FreshDatabase;
let tokenId: number;

const options = { ttlMs: 60_000, heartbeatMs: 60_000, idleReturnMs: 0, chunkFraction: 0.1 };

beforeAll(async () => {
  database = await freshDatabase();
  const [user] = await database.handle.db.insert(users).values({ name: "lease-owner", balanceUnlimited: true }).returning();
  const [token] = await database.handle.db
    .insert(tokens)
    .values({ userId: user!.id, name: "t", keyHash: "lease-test-hash", keyPrefix: "sk-", quotaLimit: 1000 })
    .returning();
  tokenId = token!.id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await database?.drop();
}, SETUP_TIMEOUT_MS);

async function leaseRows() {
  return database.handle.db.select().from(quotaLeases).where(eq(quotaLeases.subject, `token:${tokenId}`));
}

describe("quota leases", () => {
  test("two books never hold more than the limit between them", async () => {
    const first = new LeaseBook(database.handle.db, "first", () => {}, options);
    const second = new LeaseBook(database.handle.db, "second", () => {}, options);
    expect(await first.acquire(`token:${tokenId}`, 600)).toBe(true);
    expect(first.tryHold(`token:${tokenId}`, 600)).toBe(true);
    expect(await second.acquire(`token:${tokenId}`, 500)).toBe(false);
    expect(await second.acquire(`token:${tokenId}`, 500)).toBe(false);
    // Refused from memory for a moment, then asked again once the refusal is forgotten.
    second.forgetRefusal(`token:${tokenId}`);
    expect(await second.acquire(`token:${tokenId}`, 400)).toBe(true);
    const rows = await leaseRows();
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBeLessThanOrEqual(1000);
    await first.stop();
    await second.stop();
    expect(await leaseRows()).toEqual([]);
  });

  test("after a refusal, a smaller request asks the database again and gets what is left", async () => {
    const first = new LeaseBook(database.handle.db, "smaller-first", () => {}, options);
    const second = new LeaseBook(database.handle.db, "smaller-second", () => {}, options);
    expect(await first.acquire(`token:${tokenId}`, 600)).toBe(true);
    expect(await second.acquire(`token:${tokenId}`, 401)).toBe(false);
    expect(await second.acquire(`token:${tokenId}`, 400)).toBe(true);
    expect(second.tryHold(`token:${tokenId}`, 400)).toBe(true);
    await first.stop();
    await second.stop();
  });

  test("an idle slice goes back at the heartbeat so another instance can use it", async () => {
    const first = new LeaseBook(database.handle.db, "idle-first", () => {}, options);
    const second = new LeaseBook(database.handle.db, "idle-second", () => {}, options);
    expect(await first.acquire(`token:${tokenId}`, 900)).toBe(true);
    expect(await second.acquire(`token:${tokenId}`, 500)).toBe(false);
    await first.heartbeat(Date.now() + 1);
    second.forgetRefusal(`token:${tokenId}`);
    expect(await second.acquire(`token:${tokenId}`, 500)).toBe(true);
    await first.stop();
    await second.stop();
  });

  test("a slice taken back by others (an expired heartbeat) is noticed at the next heartbeat", async () => {
    const book = new LeaseBook(database.handle.db, "expired", () => {}, { ...options, idleReturnMs: 60_000 });
    expect(await book.acquire(`token:${tokenId}`, 300)).toBe(true);
    expect(book.unspent(`token:${tokenId}`)).toBeGreaterThanOrEqual(300);
    await database.handle.db.delete(quotaLeases).where(eq(quotaLeases.instanceId, "expired"));
    await book.heartbeat();
    expect(book.unspent(`token:${tokenId}`)).toBe(0);
    await book.stop();
  });

  test("an acquisition the database cannot answer rejects with 503 database_unavailable, at once once the circuit is open", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    const unreachable = openPostgres(`postgres://postgres@127.0.0.1:${port}/none`, 1);
    const circuit = new DatabaseCircuit(async () => {}, { probeIntervalMs: 60_000, log: () => {} });
    const book = new LeaseBook(unreachable.db, "unreachable", () => {}, options, circuit);
    const first = await book.acquire(`token:${tokenId}`, 100).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(GatewayError);
    expect((first as GatewayError).status).toBe(503);
    expect((first as GatewayError).code).toBe("database_unavailable");
    expect((first as GatewayError).headers?.["retry-after"]).toBeDefined();
    expect(circuit.isOpen).toBe(true);
    const second = await book.acquire(`token:${tokenId}`, 100).catch((error: unknown) => error);
    expect((second as GatewayError).status).toBe(503);
    expect(book.held(`token:${tokenId}`)).toBe(0);
    circuit.stop();
    await unreachable.close();
  });

  test("a write-behind commit reported after an acquisition that already saw it does not shrink the slice twice", async () => {
    const [user] = await database.handle.db.insert(users).values({ name: "race-owner", balanceUnlimited: true }).returning();
    const [token] = await database.handle.db
      .insert(tokens)
      .values({ userId: user!.id, name: "race", keyHash: "lease-race-hash", keyPrefix: "sk-", quotaLimit: 5000 })
      .returning();
    const subject = `token:${token!.id}` as const;
    const book = new LeaseBook(database.handle.db, "race", () => {}, { ...options, chunkFraction: 0.01 });
    // One request holds 1000, finishes and costs 1000 (not yet written).
    expect(await book.acquire(subject, 1000)).toBe(true);
    expect(book.tryHold(subject, 1000)).toBe(true);
    book.spend(subject, 1000, 1000);
    // The write-behind commits that spend (what its transaction does to these two rows) ...
    await database.handle.db.execute(sql`update tokens set used_quota = used_quota + 1000 where id = ${token!.id}`);
    const [written] = resultRows(
      await database.handle.db.execute(sql`
        update quota_leases set amount = greatest(0, amount - 1000) where subject = ${subject} and instance_id = 'race'
        returning amount, ${sql.raw(DATABASE_CLOCK_SQL)} as at`),
    );
    // ... but before its report reaches the book, another request takes a new slice, reading the shrunk row.
    expect(await book.acquire(subject, 1000)).toBe(true);
    book.written(subject, 1000, { amount: Number(written!.amount), at: Number(written!.at) } satisfies LeaseRow);
    const [row] = await database.handle.db.select().from(quotaLeases).where(eq(quotaLeases.subject, subject));
    // The book's view of its slice is the row's: nothing lost to a double shrink, so the 1000 can be held.
    expect(book.unspent(subject)).toBe(row!.amount);
    expect(book.tryHold(subject, 1000)).toBe(true);
    await book.stop();
  });
});

