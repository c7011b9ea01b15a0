import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BudgetWindows } from "@tollgate/shared";
import { tokens, users } from "@tollgate/db";
import { type FreshDatabase, freshDatabase } from "../../../../test/helpers/fresh-database";
import { SETUP_TIMEOUT_MS } from "../../../../test/helpers/timeouts";
import { loadTokenByHash, loadUserById } from "../auth/cached-records";
import { LeaseBook, NEAR_END } from "./quota-leases";
import { QuotaLedger, type Reservation } from "./quota-ledger";

// The ledger takes new slices with the cheap bound while the limit is far from its end, and asks for the
// fitted estimate (the tokenizer) only near it, or when the cheap bound is refused.

let database: FreshDatabase;
let userId: number;
const options = { ttlMs: 60_000, heartbeatMs: 60_000, idleReturnMs: 60_000, chunkFraction: 0.1 };
const books: LeaseBook[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  const [user] = await database.handle.db.insert(users).values({ name: "ledger-owner", balanceUnlimited: true }).returning();
  userId = user!.id;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const book of books) await book.stop();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

let tokenCount = 0;
async function tokenWithQuota(quotaLimit: number) {
  const keyHash = `ledger-test-${++tokenCount}`;
  await database.handle.db.insert(tokens).values({ userId, name: keyHash, keyHash, keyPrefix: "sk-", quotaLimit });
  const token = await loadTokenByHash(database.handle.db, keyHash);
  const user = await loadUserById(database.handle.db, userId);
  return { token: token!, user: user! };
}

function book(instance: string): LeaseBook {
  const leases = new LeaseBook(database.handle.db, instance, () => {}, options);
  books.push(leases);
  return leases;
}

/** A fitted estimate that says how often it was asked. */
function fittedOf(amount: number) {
  const fitted = () => {
    fitted.calls++;
    return amount;
  };
  fitted.calls = 0;
  return fitted;
}

describe("quota ledger: cheap bound far from the end, fitted estimate near it", () => {
  test("far from the end of a quota a new slice is taken for the cheap bound, without asking for the fitted estimate", async () => {
    const { token, user } = await tokenWithQuota(10_000);
    const ledger = new QuotaLedger(book("far"), new BudgetWindows());
    const fitted = fittedOf(30);
    const held = (await ledger.reserve(token, user, 100, fitted)) as Reservation;
    expect(held.amount).toBe(100);
    expect(fitted.calls).toBe(0);
    expect(ledger.heldFor(token.id)).toBe(100);
  });

  test("with less than two slices left the fitted estimate is held instead, and the cheap bound takes nothing", async () => {
    const { token, user } = await tokenWithQuota(1_000);
    const other = book("near-other");
    expect(await other.acquire(`token:${token.id}`, 850)).toBe(true);
    const leases = book("near");
    // 150 left: a slice of 100 (the cheap bound; a tenth of the limit) would leave 50, less than a slice.
    expect(await leases.acquire(`token:${token.id}`, 100, true)).toBe(NEAR_END);
    expect(leases.unspent(`token:${token.id}`)).toBe(0);
    const ledger = new QuotaLedger(leases, new BudgetWindows());
    const fitted = fittedOf(30);
    const held = (await ledger.reserve(token, user, 100, fitted)) as Reservation;
    expect(fitted.calls).toBe(1);
    expect(held.amount).toBe(30);
    expect(ledger.heldFor(token.id)).toBe(30);
  });

  test("a subject found near its end answers roomy requests from memory until its limit changes", async () => {
    const { token } = await tokenWithQuota(1_000);
    const other = book("memory-other");
    expect(await other.acquire(`token:${token.id}`, 850)).toBe(true);
    const leases = book("memory");
    expect(await leases.acquire(`token:${token.id}`, 100, true)).toBe(NEAR_END);
    // The other instance gives its slice back: the database now has room, but this book does not ask.
    await other.stop();
    expect(await leases.acquire(`token:${token.id}`, 100, true)).toBe(NEAR_END);
    expect(leases.unspent(`token:${token.id}`)).toBe(0);
    // A changed limit (the NOTIFY's forgetRefusal) makes it ask again.
    leases.forgetRefusal(`token:${token.id}`);
    expect(await leases.acquire(`token:${token.id}`, 100, true)).toBe(true);
    expect(leases.unspent(`token:${token.id}`)).toBeGreaterThanOrEqual(100);
  });

  test("a cheap bound larger than what is left is refused, and the fitted estimate that fits it is admitted", async () => {
    const { token, user } = await tokenWithQuota(1_000);
    const other = book("refused-other");
    expect(await other.acquire(`token:${token.id}`, 940)).toBe(true);
    const ledger = new QuotaLedger(book("refused"), new BudgetWindows());
    const fits = fittedOf(60);
    expect(((await ledger.reserve(token, user, 100, fits)) as Reservation).amount).toBe(60);
    expect(fits.calls).toBe(1);
    const tooBig = fittedOf(1);
    expect(await ledger.reserve(token, user, 100, tooBig)).toEqual({ refused: "token" });
    expect(tooBig.calls).toBe(1);
  });
});
