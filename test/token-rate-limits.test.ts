import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { tokens } from "@tollgate/db";
import { eq } from "drizzle-orm";
import type { FakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import type { FreshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor, type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;

const chat = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] };
/** Every answer of the fake upstream in this file reports 20 + 10 = 30 tokens. */
const TOKENS_PER_CALL = 30;

function call(target: GatewayUnderTest, key: string, body: unknown = chat) {
  return target.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    }),
  );
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; type: string; message: string } }).error;
}

async function limitedToken(limits: { tpmLimit: number; rpmLimit?: number }) {
  return seed.token({ userId, rpmLimit: limits.rpmLimit ?? null, tpmLimit: limits.tpmLimit });
}

beforeAll(async () => {
  stack = await startGatewayStack();
  ({ database, upstream, gateway, seed, userId } = stack);
  upstream.setDefault({ kind: "ok", promptTokens: 20, completionTokens: 10 });
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini"] });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("tokens-per-minute limit", () => {
  test("serves while the minute's tokens are below the limit, then answers 429 with the -tokens headers", async () => {
    const token = await limitedToken({ tpmLimit: 50 });
    const first = await call(gateway, token.secret);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("50");
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("50");
    expect(first.headers.get("x-ratelimit-reset-tokens")).toBe("0s");
    expect(first.headers.get("x-ratelimit-limit-requests")).toBeNull();
    // 30 of 50 used: the next call is still admitted, and its 30 tokens take the token over its limit.
    const second = await call(gateway, token.secret);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe(String(50 - TOKENS_PER_CALL));
    expect(second.headers.get("x-ratelimit-reset-tokens")).toMatch(/^([12]m)?\d+s$/);

    const requestsBefore = upstream.requests.length;
    const refused = await call(gateway, token.secret);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-ratelimit-limit-tokens")).toBe("50");
    expect(refused.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset-tokens")).toMatch(/^([12]m)?\d+s$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const error = await errorOf(refused);
    expect(error).toMatchObject({ code: "rate_limit_exceeded" });
    expect(error.message).toContain("50 tokens per minute");
    expect(gateway.services.prometheus.render()).toMatch(/tollgate_rate_limit_refusals_total\{limit="tokens"\} [1-9]/);
    // The refused call never reached the upstream.
    expect(upstream.requests.length).toBe(requestsBefore);
  });

  test("a streamed call's usage counts when the stream ends", async () => {
    const token = await limitedToken({ tpmLimit: TOKENS_PER_CALL });
    const streamed = await call(gateway, token.secret, { ...chat, stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("x-ratelimit-remaining-tokens")).toBe(String(TOKENS_PER_CALL));
    await streamed.text();
    const refused = await waitFor(async () => {
      const response = await call(gateway, token.secret);
      return response.status === 429 ? response : null;
    }, "the streamed usage to be counted");
    expect(refused.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
  });

  test("with both limits the answer carries both sets of headers, and a token without limits none", async () => {
    const both = await limitedToken({ tpmLimit: 1000, rpmLimit: 5 });
    const response = await call(gateway, both.secret);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-ratelimit-limit-requests")).toBe("5");
    expect(response.headers.get("x-ratelimit-remaining-requests")).toBe("4");
    expect(response.headers.get("x-ratelimit-limit-tokens")).toBe("1000");
    expect(response.headers.get("x-ratelimit-remaining-tokens")).toBe("1000");
    const open = await seed.token({ userId });
    const unlimited = await call(gateway, open.secret);
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.get("x-ratelimit-limit-tokens")).toBeNull();
    expect(unlimited.headers.get("x-ratelimit-limit-requests")).toBeNull();
  });

  test("a limit set on a token in use applies at once", async () => {
    const token = await seed.token({ userId });
    expect((await call(gateway, token.secret)).status).toBe(200);
    await database.handle.db.update(tokens).set({ tpmLimit: 10 }).where(eq(tokens.id, token.row.id));
    // Usage is counted only for tokens with a limit, so the first call after the change is admitted.
    const limited = await waitFor(async () => {
      const response = await call(gateway, token.secret);
      return response.headers.get("x-ratelimit-limit-tokens") === "10" ? response : null;
    }, "the new limit to reach the gateway");
    expect(limited.status).toBe(200);
    expect((await call(gateway, token.secret)).status).toBe(429);
  });
});

describe("tokens-per-minute limit on Redis", () => {
  test("two instances on one Redis share a token's budget", async () => {
    const prefix = `tollgate:test:${crypto.randomUUID()}:`;
    const first = await startGateway(database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    const second = await startGateway(database.handle, { redisUrl: "redis://127.0.0.1:6379", redisKeyPrefix: prefix });
    const inspector = new RedisClient("redis://127.0.0.1:6379");
    const tokensOnRedis = async (id: number) => {
      const keys = (await inspector.send("KEYS", [`${prefix}{${id}}:t:*`])) as string[];
      let total = 0;
      for (const key of keys) total += Number(await inspector.get(key));
      return total;
    };
    try {
      const token = await limitedToken({ tpmLimit: 50 });
      expect((await call(first, token.secret)).status).toBe(200);
      // Usage is added off the request path: wait until Redis has it before asking the other instance.
      await waitFor(async () => (await tokensOnRedis(token.row.id)) === TOKENS_PER_CALL, "the first call's usage on redis");
      const second200 = await call(second, token.secret);
      expect(second200.status).toBe(200);
      expect(second200.headers.get("x-ratelimit-remaining-tokens")).toBe(String(50 - TOKENS_PER_CALL));
      await waitFor(async () => (await tokensOnRedis(token.row.id)) === 2 * TOKENS_PER_CALL, "the second call's usage on redis");
      // The first instance alone has counted 30 tokens, below the limit; the shared count refuses.
      const refused = await call(first, token.secret);
      expect(refused.status).toBe(429);
      expect((await errorOf(refused)).code).toBe("rate_limit_exceeded");
    } finally {
      inspector.close();
      await first.stop();
      await second.stop();
    }
  });
});
