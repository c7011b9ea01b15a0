import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { channels, requestLogs, usageHourly } from "@tollgate/db";
import { rejection, startConsole, type ConsoleUnderTest, type SignedInUser } from "./console-fixture";

// A bound on hangs, not a tuned timing: a fresh PGlite takes seconds to migrate on a busy machine.
setDefaultTimeout(60_000);

type Signed = SignedInUser;

let harness: ConsoleUnderTest;
let admin: Signed;
let alice: Signed;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
});
afterAll(async () => {
  await harness.close();
});

const stepsOf = (status: { steps: { id: string; done: boolean }[] }) => status.steps.map((step) => `${step.id}:${step.done}`);

describe("onboarding", () => {
  test("an admin's checklist follows the real order and ticks each step from the database; unpriced served models are listed", async () => {
    expect(stepsOf(await admin.caller.quickStart.onboarding())).toEqual(["add-channel:false", "test-channel:false", "set-prices:false", "create-access:true", "first-call:false"]);
    const channel = await admin.caller.channels.create({ name: "up", baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-upstream-0001", models: ["m1", "m2"] });
    let status = await admin.caller.quickStart.onboarding();
    expect(stepsOf(status).slice(0, 3)).toEqual(["add-channel:true", "test-channel:false", "set-prices:false"]);
    expect(status.unpricedModels).toEqual(["m1", "m2"]);

    await harness.database.handle.db.update(channels).set({ lastTestAt: new Date(), lastTestError: null, lastTestLatencyMs: 5 });
    await admin.caller.models.update({ model: "m1", inputPrice: "1", outputPrice: "2", cachedInputPrice: null });
    status = await admin.caller.quickStart.onboarding();
    expect(stepsOf(status).slice(1, 3)).toEqual(["test-channel:true", "set-prices:false"]);
    expect(status.unpricedModels).toEqual(["m2"]);
    await admin.caller.models.update({ model: "m2", inputPrice: "1", outputPrice: "2", cachedInputPrice: null });
    status = await admin.caller.quickStart.onboarding();
    expect(stepsOf(status)[2]).toBe("set-prices:true");
    expect(status.unpricedModels).toEqual([]);

    // A disabled channel's models are not served: no warning for them.
    await admin.caller.channels.create({ name: "off", baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-upstream-0002", models: ["m3"], status: "disabled" });
    expect((await admin.caller.quickStart.onboarding()).unpricedModels).toEqual([]);
    expect(channel.id).toBeGreaterThan(0);
  });

  test("a user's checklist is their own token and their own first call, without the admins' warning", async () => {
    expect(await alice.caller.quickStart.onboarding()).toEqual({ steps: [{ id: "create-access", done: false }, { id: "first-call", done: false }], unpricedModels: [] });
    await alice.caller.tokens.create({ name: "mine" });
    await harness.database.handle.db.insert(requestLogs).values({ requestId: "r1", userId: alice.id, endpoint: "chat.completions", model: "m1", status: 200, latencyMs: 3 });
    expect(stepsOf(await alice.caller.quickStart.onboarding())).toEqual(["create-access:true", "first-call:true"]);
  });
});

describe("channels for admins", () => {
  test("presets list the openai-compatible vendors; health counts each channel's requests, errors and average latency over the last 24 hours", async () => {
    const presets = await admin.caller.channels.presets();
    expect(presets.find((preset) => preset.id === "deepseek")).toMatchObject({ label: "DeepSeek", baseUrl: "https://api.deepseek.com/v1" });
    const now = Date.now();
    const hour = (ago: number) => new Date(now - (now % 3_600_000) - ago * 3_600_000);
    await harness.database.handle.db.insert(usageHourly).values([
      { hour: hour(0), userId: alice.id, tokenId: 1, model: "m1", channelId: 41, requests: 8, errors: 2, latencyMsSum: 4_000, latencyCount: 8 },
      // Written before the rollup kept latency: its requests count, its latency is unknown (not zero).
      { hour: hour(3), userId: alice.id, tokenId: 1, model: "m2", channelId: 41, requests: 2, errors: 0 },
      { hour: hour(0), userId: alice.id, tokenId: 1, model: "m1", channelId: 42, requests: 1, errors: 0 },
      { hour: hour(30), userId: alice.id, tokenId: 1, model: "m1", channelId: 41, requests: 100, errors: 100 },
      { hour: hour(0), userId: alice.id, tokenId: 1, model: "m1", channelId: 0, requests: 4, errors: 4 },
    ]);
    expect((await admin.caller.channels.health()).filter((row) => row.channelId === 41)).toEqual([{ channelId: 41, requests: 10, errors: 2, averageLatencyMs: 500 }]);
    expect((await admin.caller.channels.health()).find((row) => row.channelId === 42)?.averageLatencyMs).toBeNull();
    expect((await admin.caller.channels.health()).some((row) => row.channelId === 0)).toBe(false);
    for (const call of [() => alice.caller.channels.presets(), () => alice.caller.channels.health()]) expect((await rejection(call())).code).toBe("FORBIDDEN");
  });
});

describe("dashboard breakdowns", () => {
  test("admins get usage by user and by channel (no channel reached included); a user gets neither", async () => {
    const range = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 60_000) };
    const summary = await admin.caller.dashboard.summary(range);
    expect(summary.byUser.map((row) => [row.userName, row.requests])).toEqual([["alice", 15]]);
    expect(summary.byChannel.map((row) => [row.channelId, row.requests, row.errors]).sort()).toEqual([
      [0, 4, 4],
      [41, 10, 2],
      [42, 1, 0],
    ]);
    const own = await alice.caller.dashboard.summary(range);
    expect(own.byUser).toEqual([]);
    expect(own.byChannel).toEqual([]);
    expect(own.totals.requests).toBe(15);
  });
});

describe("balance history", () => {
  test("a top-up is listed with the admin who made it and the note", async () => {
    await admin.caller.users.topUp({ id: alice.id, amount: "2.5", reason: "invoice 7" });
    const { balanceLogs } = await admin.caller.users.byId({ id: alice.id });
    expect(balanceLogs[0]).toMatchObject({ amount: 2_500_000, reason: "invoice 7", actorId: admin.id, actorName: "root" });
  });
});
