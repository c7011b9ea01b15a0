import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokens, users } from "@tollgate/db";
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

function call(key: string, body: unknown = chat, path = "/v1/chat/completions") {
  return gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    }),
  );
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: { code: string; type: string; message: string } }).error;
}

beforeAll(async () => {
  stack = await startGatewayStack({ gateway: { socketAddress: "198.51.100.20" } });
  ({ database, upstream, gateway, seed, userId } = stack);
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini", "gpt-4o", "vip-model"] });
  await seed.channel({ baseUrl: upstream.url, models: ["vip-model"], groups: ["vip"] });
  await seed.price("gpt-4o-mini", 1, 1);
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("token rules", () => {
  test("a disabled token and an expired token are refused with 401", async () => {
    const disabled = await seed.token({ userId, status: "disabled" });
    const response = await call(disabled.secret);
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe("token_disabled");
    const expired = await seed.token({ userId, expiresAt: new Date(Date.now() - 1000) });
    const expiredResponse = await call(expired.secret);
    expect(expiredResponse.status).toBe(401);
    expect((await errorOf(expiredResponse)).code).toBe("token_expired");
  });

  test("a token whose owner is disabled is refused with 401", async () => {
    const owner = await seed.user();
    const token = await seed.token({ userId: owner.id });
    expect((await call(token.secret)).status).toBe(200);
    await database.handle.db.update(users).set({ status: "disabled" }).where(eq(users.id, owner.id));
    await waitFor(async () => (await call(token.secret)).status === 401, "owner disable to propagate");
  });

  test("a model outside the token's allow-list is refused with 403 model_not_allowed", async () => {
    const restricted = await seed.token({ userId, allowedModels: ["gpt-4o"] });
    expect((await call(restricted.secret, { ...chat, model: "gpt-4o" })).status).toBe(200);
    const refused = await call(restricted.secret);
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toMatchObject({ code: "model_not_allowed", type: "permission_error" });
  });

  test("a source address outside the IP allow-list is refused with 403 ip_not_allowed", async () => {
    const allowed = await seed.token({ userId, allowedIps: ["198.51.100.0/24"] });
    expect((await call(allowed.secret)).status).toBe(200);
    const other = await seed.token({ userId, allowedIps: ["10.0.0.0/8", "2001:db8::/32"] });
    const refused = await call(other.secret);
    expect(refused.status).toBe(403);
    expect((await errorOf(refused)).code).toBe("ip_not_allowed");
  });

  test("the requests-per-minute limit answers 429 with Retry-After and x-ratelimit headers", async () => {
    const limited = await seed.token({ userId, rpmLimit: 2 });
    const first = await call(limited.secret);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-requests")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining-requests")).toBe("1");
    expect((await call(limited.secret)).status).toBe(200);
    const refused = await call(limited.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect((await errorOf(refused)).code).toBe("rate_limit_exceeded");
  });

  test("a token with no quota left is refused with 429 insufficient_quota", async () => {
    const spent = await seed.token({ userId, quotaLimit: 1000 });
    await database.handle.db.update(tokens).set({ usedQuota: 1000 }).where(eq(tokens.id, spent.row.id));
    const refused = await waitFor(async () => {
      const response = await call(spent.secret);
      return response.status === 429 ? response : null;
    }, "quota change to propagate");
    expect(await errorOf(refused)).toMatchObject({ code: "insufficient_quota", type: "insufficient_quota" });
  });

  test("a user without balance is refused with 429 insufficient_quota", async () => {
    const poor = await seed.user({ balance: 0, balanceUnlimited: false });
    const token = await seed.token({ userId: poor.id });
    const refused = await call(token.secret);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).code).toBe("insufficient_quota");
  });

  test("groups decide which channels a token reaches", async () => {
    const vipOwner = await seed.user({ group: "vip" });
    const vip = await seed.token({ userId: vipOwner.id });
    expect((await call(vip.secret, { ...chat, model: "vip-model" })).status).toBe(200);
    // gpt-4o-mini is only served to the default group.
    expect((await call(vip.secret)).status).toBe(404);
    const tokenGroup = await seed.token({ userId, group: "vip" });
    expect((await call(tokenGroup.secret)).status).toBe(404);
  });
});

describe("models list", () => {
  async function listModels(key: string) {
    const response = await gateway.handle(
      new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${key}` } }),
    );
    return { status: response.status, body: (await response.json()) as { object: string; data: Array<Record<string, unknown>> } };
  }

  test("lists only the models the token may call, in OpenAI's shape", async () => {
    const open = await seed.token({ userId });
    const { status, body } = await listModels(open.secret);
    expect(status).toBe(200);
    expect(body.object).toBe("list");
    expect(body.data.map((entry) => entry.id)).toEqual(["gpt-4o", "gpt-4o-mini", "vip-model"]);
    expect(body.data[0]).toMatchObject({ object: "model", owned_by: expect.any(String), created: expect.any(Number) });
    const restricted = await seed.token({ userId, allowedModels: ["gpt-4o", "not-served"] });
    expect((await listModels(restricted.secret)).body.data.map((entry) => entry.id)).toEqual(["gpt-4o"]);
  });

  test("retrieving one model works for a listed model and 404s otherwise", async () => {
    const open = await seed.token({ userId });
    const found = await gateway.handle(new Request("http://gateway.test/v1/models/gpt-4o", { headers: { authorization: `Bearer ${open.secret}` } }));
    expect(found.status).toBe(200);
    expect(((await found.json()) as { id: string }).id).toBe("gpt-4o");
    const missing = await gateway.handle(new Request("http://gateway.test/v1/models/nope", { headers: { authorization: `Bearer ${open.secret}` } }));
    expect(missing.status).toBe(404);
  });

  test("a bad key on the models list is a 401", async () => {
    expect((await listModels("sk-wrong")).status).toBe(401);
  });
});

describe("client address behind proxies", () => {
  test("X-Forwarded-For is believed only from a trusted proxy", async () => {
    const proxied = await startGateway(database.handle, { socketAddress: "10.1.2.3", trustedProxies: ["10.0.0.0/8"] });
    const direct = await startGateway(database.handle, { socketAddress: "10.1.2.3" });
    try {
      const token = await seed.token({ userId, allowedIps: ["203.0.113.50"] });
      const request = () =>
        new Request("http://gateway.test/v1/models", {
          headers: { authorization: `Bearer ${token.secret}`, "x-forwarded-for": "203.0.113.50" },
        });
      expect((await proxied.handle(request())).status).toBe(200);
      // Without TRUSTED_PROXIES the header is ignored and the socket address (10.1.2.3) is refused.
      expect((await direct.handle(request())).status).toBe(403);
    } finally {
      await proxied.stop();
      await direct.stop();
    }
  });
});
