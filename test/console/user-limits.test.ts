import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { eq, sum } from "drizzle-orm";
import { type GatewayStack, startGatewayStack, waitFor } from "../helpers/gateway-fixture";
import { type ConsoleUnderTest, type JsonCli, jsonCliOn, rejection, type SignedInUser, startConsole } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let stack: GatewayStack;
let harness: ConsoleUnderTest;
let admin: SignedInUser;
let cli: JsonCli;

beforeAll(async () => {
  stack = await startGatewayStack();
  // No more prompt tokens than the gateway's own count of the prompt, so that its reservations cover each call.
  stack.upstream.setDefault({ kind: "ok", promptTokens: 5, completionTokens: 10 });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini", "gpt-4o"] });
  // 15 tokens at 200 USD per million: 0.003 USD a call.
  await stack.seed.price("gpt-4o-mini", 200, 200);
  await stack.seed.price("gpt-4o", 200, 200);
  harness = await startConsole({}, stack.database);
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  cli = await jsonCliOn(stack.database);
});

afterAll(async () => {
  await harness?.close();
  await stack?.stop();
});

function chat(secret: string, model: string) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model, max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; message: string } }).error;
}

async function spentBy(tokenId: number): Promise<number> {
  const [row] = await stack.database.handle.db.select({ total: sum(requestLogs.cost) }).from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
  return Number(row?.total ?? 0);
}

describe("limits an administrator sets on a user bind every token of the user (finding 9)", () => {
  test("a token the user makes in the console without a quota or model list cannot call a model outside the user's list nor spend past the user's budget", async () => {
    const bob = await harness.signedInUser({ name: "bob" });
    // As found: the administrator's token for bob has a 0.01 USD quota and one model.
    await admin.caller.tokens.create({ name: "issued", userId: bob.id, quotaLimit: "0.01", allowedModels: ["gpt-4o-mini"] });
    // The fix: the same limits on bob himself.
    await admin.caller.users.update({ id: bob.id, budget: "0.01", allowedModels: ["gpt-4o-mini"] });
    const own = await bob.caller.tokens.create({ name: "mine" });
    expect(own.token).toMatchObject({ quotaLimit: null, allowedModels: [] });

    const outside = await chat(own.secret, "gpt-4o");
    expect(outside.status).toBe(403);
    const refusedModel = await errorOf(outside);
    expect(refusedModel.code).toBe("model_not_allowed");
    expect(refusedModel.message).toBe("Your account (an administrator's limit on all of its API keys) is not allowed to use the model 'gpt-4o'.");

    const statuses: number[] = [];
    let last: Response | null = null;
    for (let call = 0; call < 8 && statuses.at(-1) !== 429; call++) {
      last = await chat(own.secret, "gpt-4o-mini");
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(statuses.at(-1)).toBe(429);
    const refusedSpend = await errorOf(last!);
    expect(refusedSpend.code).toBe("insufficient_quota");
    expect(refusedSpend.message).toContain("account's spending budget");
    expect(last!.headers.get("x-tollgate-budget-scope")).toBe("user");
    expect(last!.headers.get("x-tollgate-budget-remaining")).toBe("0.001000");
    await waitFor(async () => (await spentBy(own.token.id)) === 9_000, "the three calls' request-log rows");
  });

  test("a user's IP list binds a token the user creates later", async () => {
    const carol = await harness.signedInUser({ name: "carol" });
    await cli("user", "update", "carol", "--ips", "10.0.0.0/8");
    const own = await carol.caller.tokens.create({ name: "mine" });
    // Calls through app.handle come from no address, which no allow-list holds.
    const refused = await chat(own.secret, "gpt-4o-mini");
    expect(refused.status).toBe(403);
    const error = await errorOf(refused);
    expect(error.code).toBe("ip_not_allowed");
    expect(error.message).toBe("Requests from your IP address are not allowed for your account (an administrator's limit on all of its API keys).");
    await cli("user", "update", "carol", "--ips", "none");
    await waitFor(async () => (await chat(own.secret, "gpt-4o-mini")).status === 200, "the lifted list to reach the gateway's cached user");
  });
});

describe("token writes by the user, within the user's limits", () => {
  test("a user an administrator withheld token creation from is refused with FORBIDDEN; an administrator still makes them one", async () => {
    const dave = await harness.signedInUser({ name: "dave" });
    const updated = await cli("user", "update", "dave", "--may-create-tokens", "false");
    expect(updated.mayCreateTokens).toBe(false);
    const refused = await rejection(dave.caller.tokens.create({ name: "mine" }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.message).toBe("An administrator does not allow your account to create tokens: ask an administrator for one");
    const issued = await admin.caller.tokens.create({ name: "issued", userId: dave.id });
    expect((await chat(issued.secret, "gpt-4o-mini")).status).toBe(200);
  });

  test("a user cannot give their token a model, an address or a per-minute limit beyond their account's, on create or update", async () => {
    const erin = await harness.signedInUser({ name: "erin" });
    await admin.caller.users.update({ id: erin.id, allowedModels: ["gpt-4o-mini"], allowedIps: ["10.0.0.0/8"], rpmLimit: 60, tpmLimit: 1000 });
    const refused = await rejection(
      erin.caller.tokens.create({ name: "wide", allowedModels: ["gpt-4o"], allowedIps: ["192.168.0.0/16"], rpmLimit: 61, tpmLimit: 1001 }),
    );
    expect(refused.code).toBe("FORBIDDEN");
    expect(Object.keys(refused.fieldErrors ?? {}).sort()).toEqual(["allowedIps", "allowedModels", "rpmLimit", "tpmLimit"]);
    const narrow = await erin.caller.tokens.create({ name: "narrow", allowedModels: ["gpt-4o-mini"], allowedIps: ["10.1.0.0/16"], rpmLimit: 30, tpmLimit: 500 });
    expect(narrow.token).toMatchObject({ allowedModels: ["gpt-4o-mini"], allowedIps: ["10.1.0.0/16"], rpmLimit: 30, tpmLimit: 500 });
    const widened = await rejection(erin.caller.tokens.update({ id: narrow.token.id, rpmLimit: 100 }));
    expect(widened.code).toBe("FORBIDDEN");
    expect(widened.fieldErrors).toEqual({ rpmLimit: ["An administrator allows your account at most 60 requests per minute across all its tokens: enter that or less"] });
    // A value left as it is is never refused, even once the administrator narrows the account below it.
    await admin.caller.users.update({ id: erin.id, rpmLimit: 10 });
    const renamed = await erin.caller.tokens.update({ id: narrow.token.id, name: "renamed", rpmLimit: 30 });
    expect(renamed.name).toBe("renamed");
  });

  test("the token form's inherited limits: a user sees their own account's, an administrator anyone's, a user no one else's", async () => {
    const frank = await harness.signedInUser({ name: "frank" });
    await admin.caller.users.update({ id: frank.id, budget: "5", budgetPeriod: "monthly", allowedModels: ["gpt-4o-mini"], rpmLimit: 20 });
    const own = await frank.caller.tokens.ownerLimits();
    expect(own).toMatchObject({ userId: frank.id, allowedModels: ["gpt-4o-mini"], allowedIps: [], rpmLimit: 20, tpmLimit: null, mayCreateTokens: true, budgetLimit: 5_000_000 });
    expect(own.budget.period).toBe("monthly");
    expect(await admin.caller.tokens.ownerLimits({ userId: frank.id })).toMatchObject({ allowedModels: ["gpt-4o-mini"], rpmLimit: 20 });
    expect((await rejection(frank.caller.tokens.ownerLimits({ userId: admin.id }))).code).toBe("FORBIDDEN");
  });
});
