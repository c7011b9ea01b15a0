import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { INVALIDATION_CHANNEL, parseInvalidation, tokens, usageHourly, users } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import { freshDatabaseForBlock, migrationStatement } from "./helpers/migration-test";
import { waitFor } from "./helpers/gateway-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

/** The statement of migration 0010 that gives the users that existed before it their lifetime spend. */
function backfillStatement(): string {
  return migrationStatement("0010_budget_periods_spend_alerts.sql", 'UPDATE "users"');
}

describe("migration 0010", () => {
  const database = freshDatabaseForBlock();

  test("users that existed before it start with their lifetime spend from the hourly rollup, and tokens keep theirs as a lifetime quota", async () => {
    const db = database.current.handle.db;
    const [spender, idle] = await db.insert(users).values([{ name: "spender" }, { name: "idle" }]).returning({ id: users.id });
    const secret = generateTokenSecret();
    const [token] = await db
      .insert(tokens)
      .values({ userId: spender!.id, name: "t", keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret), quotaLimit: 9_000, usedQuota: 4_000 })
      .returning();
    const hour = (at: string) => ({ hour: new Date(at), userId: spender!.id, tokenId: token!.id, model: "m", channelId: 0, requests: 1, errors: 0, promptTokens: 1, completionTokens: 1, cachedTokens: 0 });
    await db.insert(usageHourly).values([
      { ...hour("2026-10-01T10:00:00Z"), cost: 1_500 },
      { ...hour("2026-11-20T10:00:00Z"), cost: 2_500 },
    ]);
    await database.current.handle.execute(backfillStatement());
    const totals = await db.select({ id: users.id, usedTotal: users.usedTotal }).from(users).orderBy(asc(users.id));
    expect(totals).toEqual([
      { id: spender!.id, usedTotal: 4_000 },
      { id: idle!.id, usedTotal: 0 },
    ]);
    const [row] = await db.select().from(tokens).where(eq(tokens.id, token!.id));
    expect(row).toMatchObject({ budgetPeriod: "none", budgetTimeZone: "UTC", periodStart: null, periodUsed: 0, usedQuota: 4_000, alertThresholds: null });
  });

  test("the write-behind's period spend is announced as usage (refresh), a change of period as a change (evict)", async () => {
    const db = database.current.handle.db;
    const heard: { table: string; kind: string; id?: number }[] = [];
    const unlisten = await database.current.handle.listen(INVALIDATION_CHANNEL, {
      onNotify(payload) {
        const message = parseInvalidation(payload);
        if (message) heard.push({ table: message.table, kind: message.kind, id: message.id });
      },
      onConnect() {},
    });
    try {
      const [user] = await db.insert(users).values({ name: "notified" }).returning({ id: users.id });
      const secret = generateTokenSecret();
      const [token] = await db
        .insert(tokens)
        .values({ userId: user!.id, name: "t", keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret), quotaLimit: 1000, budgetPeriod: "daily" })
        .returning({ id: tokens.id });
      const kindsFor = (table: string, id: number) => heard.filter((message) => message.table === table && message.id === id).map((message) => message.kind);
      await waitFor(() => kindsFor("tokens", token!.id).length === 1, "the insert's notification");
      await db.update(tokens).set({ periodStart: new Date(), periodUsed: 10, usedQuota: 10 }).where(eq(tokens.id, token!.id));
      await db.update(users).set({ periodStart: new Date(), periodUsed: 10, usedTotal: 10 }).where(eq(users.id, user!.id));
      await db.update(tokens).set({ budgetPeriod: "weekly", periodStart: null, periodUsed: 0 }).where(eq(tokens.id, token!.id));
      await db.update(users).set({ budgetLimit: 5000 }).where(eq(users.id, user!.id));
      await waitFor(() => kindsFor("tokens", token!.id).length === 3 && kindsFor("users", user!.id).length === 3, "the updates' notifications");
      expect(kindsFor("tokens", token!.id)).toEqual(["change", "usage", "change"]);
      expect(kindsFor("users", user!.id)).toEqual(["change", "usage", "change"]);
    } finally {
      await unlisten();
    }
  });
});
