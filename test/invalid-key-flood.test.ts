import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "@tollgate/gateway/app";
import { type DatabaseHandle, tokens } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { type FreshDatabase, freshDatabase, usePostgres } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { startTwoGateways } from "./helpers/two-gateways";

/** The database as the gateway sees it, counting the SELECTs it sends (token and user loads are SELECTs). */
function countingSelects(handle: DatabaseHandle) {
  const counter = { selects: 0 };
  const db = new Proxy(handle.db, {
    get(target, property) {
      if (property === "select") counter.selects++;
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { handle: Object.assign(Object.create(handle) as DatabaseHandle, { db }), counter };
}

interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

let database: FreshDatabase;
let gateway: GatewayUnderTest;
let counter: { selects: number };
let app: ReturnType<typeof createApp>;
let validSecret: string;
let userId: number;

/** A call from `peer` (the app's socket address comes from a test header). */
function call(path: string, key: string, peer: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${key}`);
  headers.set("x-api-key", key);
  headers.set("x-test-peer", peer);
  return app.handle(new Request(`http://gateway.test${path}`, { ...init, headers }));
}

const randomKey = () => `sk-${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().replaceAll("-", "")}`;

beforeAll(async () => {
  database = await freshDatabase();
  const counting = countingSelects(database.handle);
  counter = counting.counter;
  gateway = await startGateway(counting.handle);
  app = createApp({ services: gateway.services, socketAddress: (request) => request.headers.get("x-test-peer") });
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  userId = (await seed.user()).id;
  validSecret = (await seed.token({ userId })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("a flood of invalid keys", () => {
  test("from one address costs at most INVALID_KEYS_PER_MINUTE lookups, then 429 in the client's shape; its valid key still passes without a query", async () => {
    const peer = "203.0.113.9";
    expect((await call("/v1/models", validSecret, peer)).status).toBe(200);
    const before = counter.selects;
    const statuses: number[] = [];
    for (let index = 0; index < 300; index++) statuses.push((await call("/v1/models", randomKey(), peer)).status);
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401));
    expect(statuses.slice(30)).toEqual(Array(270).fill(429));
    expect(counter.selects - before).toBeLessThanOrEqual(30);

    const refused = await call("/v1/models", randomKey(), peer);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await refused.json()) as ErrorEnvelope).error).toMatchObject({ type: "rate_limit_error", code: "too_many_invalid_keys", param: null });
    // A malformed key is refused the same way, and /v1/messages answers in Anthropic's shape.
    expect((await call("/v1/models", "not-a-key", peer)).status).toBe(429);
    const anthropic = await call("/v1/messages", randomKey(), peer, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(anthropic.status).toBe(429);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });

    const afterFlood = counter.selects;
    expect((await call("/v1/models", validSecret, peer)).status).toBe(200);
    expect(counter.selects).toBe(afterFlood);
    // Another address is not affected.
    expect((await call("/v1/models", randomKey(), "198.51.100.20")).status).toBe(401);
  });

  test("an unknown key asked again is answered from memory, and never evicts a valid key", async () => {
    const unknown = randomKey();
    const before = counter.selects;
    for (let index = 0; index < 10; index++) expect((await call("/v1/models", unknown, "198.51.100.21")).status).toBe(401);
    expect(counter.selects - before).toBe(1);
    // Spread over many addresses (none reaches its limit), unknown keys fill only the cache of absences.
    const valid = hashTokenSecret(validSecret);
    for (let index = 0; index < 200; index++) await call("/v1/models", randomKey(), `10.9.${index >> 8}.${index & 255}`);
    expect(gateway.services.tokens.peek(valid)).toBeTruthy();
    expect(gateway.services.tokens.absentSize).toBeGreaterThanOrEqual(200);
  });

  test("a key refused as unknown works as soon as a token is created under it", async () => {
    const secret = generateTokenSecret();
    expect((await call("/v1/models", secret, "198.51.100.22")).status).toBe(401);
    await database.handle.db.insert(tokens).values({ userId, name: "late", keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret) });
    await waitFor(async () => (await call("/v1/models", secret, "198.51.100.22")).status === 200, "the new token to be accepted");
  });
});

describe("behind a proxy", () => {
  test("invalid keys are counted by the client's address from a trusted proxy, and by the socket's from anyone else", async () => {
    const proxied = await startGateway(database.handle, { trustedProxies: ["192.0.2.1"] });
    try {
      const proxiedApp = createApp({ services: proxied.services, socketAddress: (request) => request.headers.get("x-test-peer") });
      const from = (peer: string, forwardedFor: string) =>
        proxiedApp.handle(
          new Request("http://gateway.test/v1/models", {
            headers: { authorization: `Bearer ${randomKey()}`, "x-test-peer": peer, "x-forwarded-for": forwardedFor },
          }),
        );
      for (let index = 0; index < 30; index++) expect((await from("192.0.2.1", "203.0.113.50")).status).toBe(401);
      expect((await from("192.0.2.1", "203.0.113.50")).status).toBe(429);
      // Another client behind the same proxy is not refused for its neighbour's keys.
      expect((await from("192.0.2.1", "203.0.113.51")).status).toBe(401);
      // From an untrusted socket X-Forwarded-For is ignored: changing it does not reset the count.
      for (let index = 0; index < 30; index++) expect((await from("198.51.100.99", `203.0.113.${index}`)).status).toBe(401);
      expect((await from("198.51.100.99", "203.0.113.200")).status).toBe(429);
    } finally {
      await proxied.stop();
    }
  });
});

describe("two instances", () => {
  test.if(usePostgres)(
    "an instance that cached a key as unknown accepts it once another instance's database has created it",
    async () => {
      const two = await startTwoGateways();
      try {
        const owner = (await two.seed.user()).id;
        const secret = generateTokenSecret();
        const models = (instance: GatewayUnderTest) =>
          instance.handle(new Request("http://gateway.test/v1/models", { headers: { authorization: `Bearer ${secret}` } }));
        expect((await models(two.first)).status).toBe(401);
        expect((await models(two.second)).status).toBe(401);
        expect(two.second.services.tokens.peek(hashTokenSecret(secret))).toBeNull();
        await two.database.handle.db.insert(tokens).values({ userId: owner, name: "late", keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret) });
        // The insert's NOTIFY reaches both; neither waits for the 30 s of its cached absence.
        await waitFor(async () => (await models(two.second)).status === 200, "the second instance to accept the new key");
        await waitFor(async () => (await models(two.first)).status === 200, "the first instance to accept the new key");
      } finally {
        await two.stop();
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
