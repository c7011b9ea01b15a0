import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { quotaLeases, tokens, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FreshDatabase, freshDatabase } from "../../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { LeaseBook } from "./quota-leases";

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
    expect(await second.acquire(`token:${tokenId}`, 400)).toBe(false);
    // Refused from memory for a moment, then asked again once the refusal is forgotten.
    second.forgetRefusal(`token:${tokenId}`);
    expect(await second.acquire(`token:${tokenId}`, 400)).toBe(true);
    const rows = await leaseRows();
    expect(rows.reduce((sum, row) => sum + row.amount, 0)).toBeLessThanOrEqual(1000);
    await first.stop();
    await second.stop();
    expect(await leaseRows()).toEqual([]);
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
});
