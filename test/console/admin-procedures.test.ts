import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { balanceLogs, channels, requestLogs, usageHourly } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { startFakeOpenAIUpstream, type FakeOpenAIUpstream } from "../helpers/fake-openai-upstream";
import { rejection, startConsole, type ConsoleUnderTest, type SignedInUser } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

type Signed = SignedInUser;

let harness: ConsoleUnderTest;
let upstream: FakeOpenAIUpstream;
let admin: Signed;
let alice: Signed;
let bob: Signed;

beforeAll(async () => {
  harness = await startConsole();
  upstream = await startFakeOpenAIUpstream({ requireApiKey: "sk-upstream-secret-1234" });
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  bob = await harness.signedInUser({ name: "bob" });
});
afterAll(async () => {
  await upstream.close();
  await harness.close();
});

describe("admin-only procedures", () => {
  test("a user cannot reach channels, users or model prices", async () => {
    // Called one at a time: a rejected promise nobody awaits yet would count as unhandled.
    const calls = [
      () => alice.caller.channels.list(),
      () => alice.caller.channels.create({ name: "x", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k", models: ["m"] }),
      () => alice.caller.channels.test({ id: 1 }),
      () => alice.caller.users.list(),
      () => alice.caller.users.topUp({ id: alice.id, amount: "100" }),
      () => alice.caller.users.update({ id: alice.id, role: "admin" }),
      () => alice.caller.users.resetPassword({ id: bob.id, password: "new-password-1" }),
      () => alice.caller.models.list(),
      () => alice.caller.models.update({ model: "m", inputPrice: "0", outputPrice: "0", cachedInputPrice: null }),
    ];
    for (const call of calls) expect((await rejection(call())).code).toBe("FORBIDDEN");
  });
});

describe("channels", () => {
  test("the key is stored encrypted and only ever returned masked; a test stores its result", async () => {
    const created = await admin.caller.channels.create({
      name: "fake",
      baseUrl: `${upstream.url}/`,
      apiKey: "sk-upstream-secret-1234",
      models: ["gpt-4o-mini", "alias"],
      modelMapping: { alias: "gpt-4o-mini" },
      priority: 5,
    });
    expect(created).toMatchObject({ baseUrl: upstream.url, keyMasked: "sk-…1234", groups: ["default"], weight: 1, status: "enabled" });
    expect(JSON.stringify(created)).not.toContain("secret");
    expect("apiKeyEncrypted" in created).toBe(false);
    const [row] = await harness.database.handle.db.select().from(channels).where(eq(channels.id, created.id));
    expect(row!.apiKeyEncrypted.startsWith("v2:")).toBe(true);

    const result = await admin.caller.channels.test({ id: created.id });
    expect(result.ok).toBe(true);
    const tested = await admin.caller.channels.byId({ id: created.id });
    expect(tested.lastTestAt).toBeInstanceOf(Date);
    expect(tested.lastTestError).toBeNull();
    expect(tested.lastTestLatencyMs).toBeGreaterThanOrEqual(0);

    // A wrong key: the failure is stored, and the error names no key.
    await admin.caller.channels.update({ id: created.id, apiKey: "sk-wrong-key-5678" });
    const failed = await admin.caller.channels.test({ id: created.id });
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("HTTP 401");
    expect(failed.error).not.toContain("sk-wrong-key-5678");
    expect((await admin.caller.channels.byId({ id: created.id })).lastTestError).toBe(failed.error);
    // An empty key on update keeps the stored one.
    const kept = await admin.caller.channels.update({ id: created.id, apiKey: "", weight: 3 });
    expect(kept).toMatchObject({ keyMasked: "sk-…5678", weight: 3 });
  });

  test("Test loads and decrypts the stored channel: a key that cannot be decrypted fails without a request, an unknown id is not found", async () => {
    const created = await admin.caller.channels.create({ name: "undecryptable", baseUrl: upstream.url, apiKey: "sk-upstream-secret-1234", models: ["undecryptable-model"] });
    // A sealed key whose tag no longer matches does not open, as after a TOLLGATE_SECRET change.
    const [other] = await harness.database.handle.db.select().from(channels).where(eq(channels.id, created.id));
    await harness.database.handle.db.update(channels).set({ apiKeyEncrypted: `${other!.apiKeyEncrypted.slice(0, -4)}AAAA` }).where(eq(channels.id, created.id));
    const requestsBefore = upstream.requests.length;
    const result = await admin.caller.channels.test({ id: created.id });
    expect(result).toEqual({ ok: false, latencyMs: 0, error: "the key cannot be decrypted (was TOLLGATE_SECRET changed?)" });
    expect(upstream.requests.length).toBe(requestsBefore);
    expect((await admin.caller.channels.byId({ id: created.id })).lastTestError).toBe(result.error);
    expect((await rejection(admin.caller.channels.test({ id: 999_999 }))).code).toBe("NOT_FOUND");
    await admin.caller.channels.delete({ id: created.id });
  });

  test("invalid channel input gets field errors", async () => {
    const failure = await rejection(
      admin.caller.channels.create({ name: "bad", baseUrl: "ftp://x", apiKey: "has space", models: [], modelMapping: { other: "x" }, weight: 0 }),
    );
    expect(Object.keys(failure.fieldErrors ?? {}).sort()).toEqual(["apiKey", "baseUrl", "models", "weight"]);
    const mapping = await rejection(admin.caller.channels.create({ name: "bad", baseUrl: "http://x", apiKey: "k", models: ["a"], modelMapping: { b: "c" } }));
    expect(mapping.fieldErrors?.modelMapping).toEqual(['Maps "b", which is not one of the channel\'s models']);
  });
});

describe("models and prices", () => {
  test("lists every served model with its price; prices are set in USD per 1M tokens", async () => {
    await admin.caller.models.update({ model: "gpt-4o-mini", inputPrice: "0.15", outputPrice: "0.6", cachedInputPrice: "0.075" });
    const models = await admin.caller.models.list();
    const mini = models.find((model) => model.model === "gpt-4o-mini");
    expect(mini?.price).toMatchObject({ inputPrice: 150_000, outputPrice: 600_000, cachedInputPrice: 75_000 });
    expect(mini?.channels.map((channel) => channel.name)).toEqual(["fake"]);
    expect(models.find((model) => model.model === "alias")?.price).toBeNull();
    expect(await alice.caller.models.available()).toEqual(["alias", "gpt-4o-mini"]);
    const failure = await rejection(admin.caller.models.update({ model: "m", inputPrice: "-1", outputPrice: "x", cachedInputPrice: null }));
    expect(Object.keys(failure.fieldErrors ?? {}).sort()).toEqual(["inputPrice", "outputPrice"]);
  });

  test("cache read, 5-minute write and 1-hour write prices are set with the price and checked like it", async () => {
    await admin.caller.models.update({ model: "claude", inputPrice: "3", outputPrice: "15", cachedInputPrice: "0.3", cacheWritePrice: "3.75", cacheWrite1hPrice: "6" });
    const price = (await admin.caller.models.list()).find((model) => model.model === "claude")?.price;
    expect(price).toMatchObject({ cachedInputPrice: 300_000, cacheWritePrice: 3_750_000, cacheWrite1hPrice: 6_000_000 });
    // Left out: the input price again (a price always states all of itself).
    await admin.caller.models.update({ model: "claude", inputPrice: "3", outputPrice: "15" });
    expect((await admin.caller.models.list()).find((model) => model.model === "claude")?.price).toMatchObject({ cacheWritePrice: null, cacheWrite1hPrice: null });
    const failure = await rejection(admin.caller.models.update({ model: "claude", inputPrice: "3", outputPrice: "15", cacheWritePrice: "-1", cacheWrite1hPrice: "lots" }));
    expect(failure.fieldErrors).toEqual({ cacheWritePrice: [expect.stringContaining("non-negative")], cacheWrite1hPrice: [expect.any(String)] });
    await admin.caller.models.delete({ model: "claude" });
  });
});

describe("users", () => {
  test("create, set group, disable, top up (with a balance log) and reset the password", async () => {
    const carol = await admin.caller.users.create({ name: "carol", password: "carol-password", balance: "1.5" });
    expect(carol).toMatchObject({ balance: 1_500_000, balanceUnlimited: false, hasPassword: true, role: "user", group: "default" });
    expect("passwordHash" in carol).toBe(false);
    expect((await admin.caller.users.update({ id: carol.id, group: "vip" })).group).toBe("vip");
    const topped = await admin.caller.users.topUp({ id: carol.id, amount: "2", reason: "invoice 42" });
    expect(topped.balance).toBe(3_500_000);
    const logs = await harness.database.handle.db.select().from(balanceLogs).where(eq(balanceLogs.userId, carol.id));
    expect(logs).toMatchObject([{ amount: 2_000_000, reason: "invoice 42", actorId: admin.id }]);
    expect((await admin.caller.users.byId({ id: carol.id })).balanceLogs).toHaveLength(1);

    const cookie = await harness.login("carol", "carol-password");
    await admin.caller.users.resetPassword({ id: carol.id, password: "another-password" });
    expect((await rejection(harness.anonymous({ headers: { cookie } }).auth.me())).code).toBe("UNAUTHORIZED");
    await harness.login("carol", "another-password");

    expect((await rejection(admin.caller.users.create({ name: "carol" }))).fieldErrors).toEqual({ name: ['User "carol" already exists'] });
    expect((await rejection(admin.caller.users.topUp({ id: carol.id, amount: "0" }))).fieldErrors?.amount).toEqual(["Must be a positive amount in USD (at most 6 decimals)"]);
    expect((await rejection(admin.caller.users.update({ id: admin.id, status: "disabled" }))).code).toBe("BAD_REQUEST");
  });
});

describe("logs and dashboard", () => {
  beforeAll(async () => {
    const db = harness.database.handle.db;
    const base = Date.parse("2030-01-01T10:00:00Z");
    const rows = [];
    for (let index = 0; index < 5; index++) {
      rows.push({ requestId: `a${index}`, userId: alice.id, tokenId: 1, tokenName: "alice-token", endpoint: "chat.completions", model: "gpt-4o-mini", channelId: 1, status: 200, latencyMs: 10, cost: 7, createdAt: new Date(base) });
    }
    rows.push({ requestId: "b0", userId: bob.id, tokenId: 2, tokenName: "bob-token", endpoint: "chat.completions", model: "gpt-4o", channelId: 1, status: 429, latencyMs: 3, cost: 0, createdAt: new Date(base + 1000) });
    await db.insert(requestLogs).values(rows);
    await db.insert(usageHourly).values([
      { hour: new Date(base), userId: alice.id, tokenId: 1, model: "gpt-4o-mini", channelId: 1, requests: 5, errors: 0, promptTokens: 50, completionTokens: 20, cachedTokens: 30, cacheWriteTokens: 5, cacheWrite1hTokens: 2, cost: 35, cacheSavings: 12 },
      { hour: new Date(base), userId: bob.id, tokenId: 2, model: "gpt-4o", channelId: 1, requests: 1, errors: 1, promptTokens: 0, completionTokens: 0, cost: 0 },
    ]);
  });

  test("a user reads only their own logs, paged newest first without gaps or repeats", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof alice.caller.logs.list>> = await alice.caller.logs.list({ limit: 2, cursor });
      seen.push(...page.items.map((item) => item.requestId));
      expect(page.items.every((item) => item.channelName === null)).toBe(true);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(["a0", "a1", "a2", "a3", "a4"]);
    expect((await alice.caller.logs.list({ tokenId: 2 })).items).toEqual([]);
    expect((await rejection(alice.caller.logs.list({ userId: bob.id }))).code).toBe("FORBIDDEN");
    expect((await rejection(alice.caller.logs.list({ channelId: 1 }))).code).toBe("FORBIDDEN");
  });

  test("an admin filters by user, status and channel", async () => {
    const errors = await admin.caller.logs.list({ status: "error" });
    expect(errors.items.map((item) => item.requestId)).toEqual(["b0"]);
    expect(errors.items[0]).toMatchObject({ userName: "bob", status: 429 });
    expect((await admin.caller.logs.list({ userId: alice.id, channelId: 1 })).items).toHaveLength(5);
    expect((await admin.caller.logs.list({ from: new Date("2031-01-01") })).items).toEqual([]);
  });

  test("the dashboard sums the hourly rollup, for the user's own usage only", async () => {
    const range = { from: new Date("2030-01-01T00:00:00Z"), to: new Date("2030-01-02T00:00:00Z") };
    const mine = await alice.caller.dashboard.summary(range);
    expect(mine.totals).toEqual({
      requests: 5,
      errors: 0,
      promptTokens: 50,
      completionTokens: 20,
      cost: 35,
      cachedTokens: 30,
      cacheWriteTokens: 5,
      cacheWrite1hTokens: 2,
      cacheSavings: 12,
    });
    expect(mine.series).toHaveLength(24);
    expect(mine.series[10]).toMatchObject({ time: new Date("2030-01-01T10:00:00Z"), requests: 5 });
    expect(mine.byModel.map((row) => [row.model, row.cachedTokens, row.cacheSavings])).toEqual([["gpt-4o-mini", 30, 12]]);
    expect(mine.byToken.map((row) => row.tokenId)).toEqual([1]);
    const everyone = await admin.caller.dashboard.summary({ ...range, bucket: "day" });
    expect(everyone.totals.requests).toBe(6);
    expect(everyone.series).toEqual([expect.objectContaining({ requests: 6, errors: 1 })]);
    expect((await rejection(alice.caller.dashboard.summary({ ...range, userId: bob.id }))).code).toBe("FORBIDDEN");
  });
});
