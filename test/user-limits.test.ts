import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { RedisClient } from "bun";
import { runCommand } from "@tollgate/cli/run-command";
import { users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, type GatewayUnderTest, startGateway, startGatewayStack, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { twoGatewaysForBlock } from "./helpers/two-gateways";
import { usePostgres } from "./helpers/fresh-database";

// A bound on hangs for the two-instance tests' set-up, not a tuned timing.
setDefaultTimeout(60_000);

/** Every answer of the fake upstream in this file reports 20 + 10 = 30 tokens. */
const TOKENS_PER_CALL = 30;
const ACCOUNT = "your account (an administrator's limit on all of its API keys)";

let stack: GatewayStack;

function chat(gateway: GatewayUnderTest, key: string, model = "gpt-4o-mini") {
  return gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    }),
  );
}

function listModels(gateway: GatewayUnderTest, key: string) {
  return gateway.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${key}` } }));
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; type: string; message: string } }).error;
}

async function limitUser(id: number, limits: Partial<typeof users.$inferInsert>) {
  await stack.database.handle.db.update(users).set({ ...limits, updatedAt: new Date() }).where(eq(users.id, id));
}

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { socketAddress: "203.0.113.9" } });
  stack.upstream.setDefault({ kind: "ok", promptTokens: 20, completionTokens: 10 });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini", "gpt-4o"] });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("a user's requests per minute", () => {
  test("are one count shared by all of the user's tokens, refused with 429, Retry-After and the account named", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { rpmLimit: 3 });
    const first = await stack.seed.token({ userId: user.id });
    const second = await stack.seed.token({ userId: user.id });
    const answers = [await chat(stack.gateway, first.secret), await chat(stack.gateway, second.secret), await chat(stack.gateway, first.secret)];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(answers[2]!.headers.get("x-ratelimit-limit-requests")).toBe("3");
    expect(answers[2]!.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    const refused = await chat(stack.gateway, second.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const error = await errorOf(refused);
    expect(error.code).toBe("rate_limit_exceeded");
    expect(error.message).toStartWith(`Rate limit reached for ${ACCOUNT}: 3 requests per minute.`);
    // Another user's tokens are not counted with them.
    const other = await stack.seed.token({ userId: stack.userId });
    expect((await chat(stack.gateway, other.secret)).status).toBe(200);
  });

  test("a call a token's own limit refuses does not use up the requests the user's other tokens share", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { rpmLimit: 3 });
    const narrow = await stack.seed.token({ userId: user.id, rpmLimit: 1 });
    const other = await stack.seed.token({ userId: user.id });
    expect((await chat(stack.gateway, narrow.secret)).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await chat(stack.gateway, narrow.secret);
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).message).toStartWith("Rate limit reached for this API key: 1 requests per minute.");
    }
    const shared = [await chat(stack.gateway, other.secret), await chat(stack.gateway, other.secret)];
    expect(shared.map((answer) => answer.status)).toEqual([200, 200]);
    expect((await chat(stack.gateway, other.secret)).status).toBe(429);
  });

  test("the headers report the tighter of the token's limit and the user's", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { rpmLimit: 2 });
    const token = await stack.seed.token({ userId: user.id, rpmLimit: 10 });
    const answer = await chat(stack.gateway, token.secret);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(answer.headers.get("x-ratelimit-remaining-requests")).toBe("1");
  });
});

describe("a user's tokens per minute", () => {
  test("are one count shared by all of the user's tokens", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { tpmLimit: 50 });
    const first = await stack.seed.token({ userId: user.id });
    const second = await stack.seed.token({ userId: user.id });
    expect((await chat(stack.gateway, first.secret)).status).toBe(200);
    const next = await chat(stack.gateway, second.secret);
    expect(next.status).toBe(200);
    expect(next.headers.get("x-ratelimit-remaining-tokens")).toBe(String(50 - TOKENS_PER_CALL));
    // 60 of 50: both tokens are refused.
    for (const token of [first, second]) {
      const refused = await chat(stack.gateway, token.secret);
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).message).toStartWith(`Rate limit reached for ${ACCOUNT}: 50 tokens per minute.`);
    }
  });
});

describe("a user's model and IP lists", () => {
  test("bind a token with no list of its own: other models are refused with 403 and left out of /v1/models", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { allowedModels: ["gpt-4o-mini"] });
    const token = await stack.seed.token({ userId: user.id });
    expect((await chat(stack.gateway, token.secret, "gpt-4o-mini")).status).toBe(200);
    const refused = await chat(stack.gateway, token.secret, "gpt-4o");
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: "model_not_allowed", type: "permission_error" });
    const listed = (await (await listModels(stack.gateway, token.secret)).json()) as { data: { id: string }[] };
    expect(listed.data.map((model) => model.id)).toEqual(["gpt-4o-mini"]);
  });

  test("a token's own list cannot widen the user's: both must allow the model", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { allowedModels: ["gpt-4o-mini"] });
    const token = await stack.seed.token({ userId: user.id, allowedModels: ["gpt-4o"] });
    for (const model of ["gpt-4o", "gpt-4o-mini"]) {
      const refused = await chat(stack.gateway, token.secret, model);
      expect(refused.status).toBe(403);
      expect((await errorOf(refused)).code).toBe("model_not_allowed");
    }
  });

  test("a token is refused from an address outside the user's list even when its own list allows it", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { allowedIps: ["10.0.0.0/8"] });
    const token = await stack.seed.token({ userId: user.id, allowedIps: ["203.0.113.0/24"] });
    const refused = await chat(stack.gateway, token.secret);
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: "ip_not_allowed", message: `Requests from your IP address are not allowed for ${ACCOUNT}.` });
    await limitUser(user.id, { allowedIps: ["203.0.113.9"] });
    await waitFor(async () => (await chat(stack.gateway, token.secret)).status === 200, "the widened list to reach the cached user");
  });

  test("a warm call reads the user's limits from memory", async () => {
    const user = await stack.seed.user();
    await limitUser(user.id, { allowedModels: ["gpt-4o-mini"], rpmLimit: 100 });
    const token = await stack.seed.token({ userId: user.id });
    expect((await chat(stack.gateway, token.secret)).status).toBe(200);
    const cached = stack.gateway.services.users.peek(user.id);
    expect(cached).toMatchObject({ rpmLimit: 100, rateLimitKey: `u${user.id}` });
    expect((await chat(stack.gateway, token.secret)).status).toBe(200);
    // The same object: nothing was loaded again.
    expect(stack.gateway.services.users.peek(user.id)).toBe(cached!);
  });
});

describe("a user's requests per minute on Redis", () => {
  test("two instances on one Redis share the count of all of the user's tokens", async () => {
    const prefix = `tollgate:test:${crypto.randomUUID()}:`;
    const first = await startGateway(stack.database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    const second = await startGateway(stack.database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    const inspector = new RedisClient("redis://127.0.0.1:6379");
    try {
      await waitFor(async () => (await first.services.catalog.get()).channelsByModel.has("gpt-4o-mini") && (await second.services.catalog.get()).channelsByModel.has("gpt-4o-mini"), "the channel in both catalogs");
      const user = await stack.seed.user();
      await limitUser(user.id, { rpmLimit: 2 });
      const one = await stack.seed.token({ userId: user.id });
      const two = await stack.seed.token({ userId: user.id });
      expect((await chat(first, one.secret)).status).toBe(200);
      expect((await chat(second, two.secret)).status).toBe(200);
      // Both requests are counted under the user's key (one key, or two when the calls straddle a minute);
      // the minute's request counters are `{key}:<minute>`, beside the times of their last request (`:l:`).
      const keys = (await inspector.send("KEYS", [`${prefix}{u${user.id}}:*`])) as string[];
      const requestCounters = keys.filter((key) => /^\d+$/.test(key.slice(`${prefix}{u${user.id}}:`.length)));
      let counted = 0;
      for (const key of requestCounters) counted += Number(await inspector.get(key));
      expect(counted).toBe(2);
      // Each instance alone has counted one request, below the limit; the shared count refuses.
      const refused = await chat(first, two.secret);
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).message).toStartWith(`Rate limit reached for ${ACCOUNT}: 2 requests per minute.`);
    } finally {
      inspector.close();
      await first.stop();
      await second.stop();
    }
  });
});

describe("a user's limits across two instances on one Postgres", () => {
  const gateways = twoGatewaysForBlock();

  test.if(usePostgres)("a user update by the CLI evicts the cached user on both warm instances", async () => {
    const two = gateways.current;
    await two.seed.channel({ baseUrl: two.upstream.url, models: ["gpt-4o-mini", "gpt-4o"] });
    const user = await two.seed.user({ name: "shared" });
    const token = await two.seed.token({ userId: user.id });
    for (const gateway of [two.first, two.second]) expect((await chat(gateway, token.secret, "gpt-4o")).status).toBe(200);
    const result = await runCommand(["user", "update", "shared", "--models", "gpt-4o-mini"], { db: two.database.handle.db, secretBox: two.first.secretBox });
    expect(result.exitCode).toBe(0);
    for (const gateway of [two.first, two.second]) {
      await waitFor(async () => (await chat(gateway, token.secret, "gpt-4o")).status === 403, "the user's model list to reach the instance");
      expect((await chat(gateway, token.secret, "gpt-4o-mini")).status).toBe(200);
    }
  });
});
