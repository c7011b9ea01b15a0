import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { modelPrices, requestLogs, teams, tokens } from "@tollgate/db";
import { responseCacheKey } from "@tollgate/gateway/response-cache/cache-key";
import { and, eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, requestLogsOf, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Tests here start gateways on fresh databases (seconds on a busy machine): a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const REDIS_URL = "redis://127.0.0.1:6379";

let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
/** Two instances sharing one database and one Redis: the cache is theirs in common. */
let first: GatewayUnderTest;
let second: GatewayUnderTest;
/** An instance without Redis: its cache is in process, its own. */
let alone: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;

const MODEL = "cached-model";

beforeAll(async () => {
  database = await freshDatabase();
  upstream = await startFakeOpenAIUpstream();
  const prefix = `test:cache:${crypto.randomUUID()}:`;
  first = await startGateway(database.handle, { redisUrl: REDIS_URL, redisKeyPrefix: prefix });
  second = await startGateway(database.handle, { redisUrl: REDIS_URL, redisKeyPrefix: prefix });
  alone = await startGateway(database.handle);
  seed = seeder(database.handle, first.secretBox, [first, second, alone]);
  userId = (await seed.user()).id;
  await seed.channel({ baseUrl: upstream.url, models: [MODEL, "priced-hit-model", "embedding-model"] });
  await seed.price(MODEL, 1, 2);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await alone?.stop();
  await upstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

/** A token of `owner` whose calls are cached for `ttlSeconds` (null: off), shared within `scope`. */
async function cachingToken(owner = userId, ttlSeconds: number | null = 60, scope: "user" | "token" | "team" | "group" = "user", teamId: number | null = null) {
  const token = await seed.token({ userId: owner, teamId });
  await database.handle.db.update(tokens).set({ responseCacheTtlSeconds: ttlSeconds, responseCacheScope: scope }).where(eq(tokens.id, token.row.id));
  return token;
}

function chatRequest(key: string, body: string, headers: Record<string, string> = {}) {
  return new Request("http://gateway.test/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body,
  });
}

/** A body unique to the test (so that tests never share entries), with its keys in the order given. */
function uniquePrompt(): string {
  return `question ${crypto.randomUUID()}`;
}

/** The text of a chat stream's content deltas, and whether it ended with [DONE]. */
function streamedText(events: string): { text: string; done: boolean } {
  let text = "";
  let done = false;
  for (const line of events.split("\n")) {
    if (!line.startsWith("data: ")) continue;
    const data = line.slice(6);
    if (data === "[DONE]") {
      done = true;
      continue;
    }
    const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] };
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  return { text, done };
}

describe("exact response cache across two instances on Redis", () => {
  test("an identical call on the other instance is a hit: same answer, no upstream call, an age header", async () => {
    const token = await cachingToken();
    const prompt = uniquePrompt();
    upstream.enqueue({ kind: "ok", content: "the cached answer" });
    const calls = upstream.requests.length;
    const miss = await first.handle(chatRequest(token.secret, JSON.stringify({ model: MODEL, messages: [{ role: "user", content: prompt }], temperature: 0 })));
    expect(miss.status).toBe(200);
    expect(miss.headers.get("x-tollgate-cache")).toBe("miss");
    const original = await miss.text();
    expect(upstream.requests.length).toBe(calls + 1);
    // The same request with its keys in another order, other whitespace, and another end user.
    const reordered = `{ "temperature": 0,\n  "messages": [ { "content": ${JSON.stringify(prompt)}, "role": "user" } ], "user": "someone-else", "model": "${MODEL}" }`;
    // The answer was stored before it was returned: the other instance finds it at once.
    const hit = await second.handle(chatRequest(token.secret, reordered));
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(hit.status).toBe(200);
    expect(await hit.text()).toBe(original);
    expect(Number(hit.headers.get("age"))).toBeGreaterThanOrEqual(0);
    expect(upstream.requests.length).toBe(calls + 1);
    const [row] = (await requestLogsOf(database.handle, second, token.row.id)).filter((log) => log.responseCache === "hit");
    expect(row!.status).toBe(200);
    expect(row!.model).toBe(MODEL);
  });

  test("x-tollgate-cache: off bypasses the cache, and refresh replaces the stored answer", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    upstream.enqueue({ kind: "ok", content: "first answer" });
    await (await first.handle(chatRequest(token.secret, body))).text();
    expect((await second.handle(chatRequest(token.secret, body))).headers.get("x-tollgate-cache")).toBe("hit");
    const calls = upstream.requests.length;
    upstream.enqueue({ kind: "ok", content: "bypassing answer" });
    const bypass = await second.handle(chatRequest(token.secret, body, { "x-tollgate-cache": "off" }));
    expect(bypass.headers.get("x-tollgate-cache")).toBe("bypass");
    expect(await bypass.text()).toContain("bypassing answer");
    expect(upstream.requests.length).toBe(calls + 1);
    upstream.enqueue({ kind: "ok", content: "refreshed answer" });
    const refresh = await first.handle(chatRequest(token.secret, body, { "x-tollgate-cache": "refresh" }));
    expect(refresh.headers.get("x-tollgate-cache")).toBe("miss");
    expect(await refresh.text()).toContain("refreshed answer");
    expect(upstream.requests.length).toBe(calls + 2);
    const after = await second.handle(chatRequest(token.secret, body));
    expect(after.headers.get("x-tollgate-cache")).toBe("hit");
    expect(await after.text()).toContain("refreshed answer");
    expect(upstream.requests.length).toBe(calls + 2);
    await second.services.usage.flush();
    const logged = (await requestLogsOf(database.handle, first, token.row.id)).map((log) => log.responseCache);
    expect(logged).toContain("bypass");
    expect(logged).toContain("refresh");
  });

  test("an entry expires after its TTL: the next call is a miss that reaches the upstream", async () => {
    const token = await cachingToken(userId, null);
    const value = { model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] };
    const headers = { "x-tollgate-cache": "on", "x-tollgate-cache-ttl": "1" };
    await (await first.handle(chatRequest(token.secret, JSON.stringify(value), headers))).text();
    const key = responseCacheKey("chat.completions", `u${userId}`, MODEL, value);
    await waitFor(() => first.services.responseCache.store.get(key), "the entry stored");
    await waitFor(async () => (await first.services.responseCache.store.get(key)) === null, "the entry expired", 5_000);
    const calls = upstream.requests.length;
    const response = await second.handle(chatRequest(token.secret, JSON.stringify(value), headers));
    expect(response.headers.get("x-tollgate-cache")).toBe("miss");
    expect(upstream.requests.length).toBe(calls + 1);
  });

  test("a streamed hit replays a well-formed event stream whose text equals the original's", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: uniquePrompt() }] });
    upstream.enqueue({ kind: "ok", content: "a streamed answer in several words" });
    const miss = await first.handle(chatRequest(token.secret, body));
    expect(miss.headers.get("x-tollgate-cache")).toBe("miss");
    const original = streamedText(await miss.text());
    expect(original.text).toBe("a streamed answer in several words");
    const calls = upstream.requests.length;
    const hit = await second.handle(chatRequest(token.secret, body));
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(hit.headers.get("content-type")).toStartWith("text/event-stream");
    const replayed = streamedText(await hit.text());
    expect(replayed).toEqual({ text: original.text, done: true });
    expect(upstream.requests.length).toBe(calls);
  });

  test("a hit is billed at the model's cache-hit price and logged as a hit", async () => {
    const model = "priced-hit-model";
    await seed.price(model, 10, 20);
    await database.handle.db.update(modelPrices).set({ cacheHitPrice: 1234 }).where(eq(modelPrices.model, model));
    for (const gateway of [first, second]) await waitFor(async () => (await gateway.services.catalog.get()).prices.get(model)?.cacheHitPrice === 1234, "the cache-hit price");
    const token = await cachingToken();
    const body = JSON.stringify({ model, messages: [{ role: "user", content: uniquePrompt() }] });
    await (await first.handle(chatRequest(token.secret, body))).text();
    const hit = await second.handle(chatRequest(token.secret, body));
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(hit.headers.get("x-tollgate-cost-usd")).toBe("0.001234");
    await second.services.usage.flush();
    const [row] = await database.handle.db
      .select()
      .from(requestLogs)
      .where(and(eq(requestLogs.tokenId, token.row.id), eq(requestLogs.responseCache, "hit")));
    expect(row!.cost).toBe(1234);
    expect(row!.promptTokens).toBe(0);
    // A token of the same owner whose quota cannot cover the hit's price is refused, not served.
    const nearlySpent = await seed.token({ userId, quotaLimit: 1 });
    await database.handle.db.update(tokens).set({ responseCacheTtlSeconds: 60 }).where(eq(tokens.id, nearlySpent.row.id));
    const refused = await second.handle(chatRequest(nearlySpent.secret, body));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-tollgate-cache")).toBe("miss");
  });

  test("scopes never leak: another user misses, another token of the same user hits only in the user scope, a group scope shares", async () => {
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    const owner = await cachingToken();
    await (await first.handle(chatRequest(owner.secret, body))).text();
    const sibling = await cachingToken();
    expect((await second.handle(chatRequest(sibling.secret, body))).headers.get("x-tollgate-cache")).toBe("hit");
    const stranger = await cachingToken((await seed.user()).id);
    const strangerAnswer = await second.handle(chatRequest(stranger.secret, body));
    expect(strangerAnswer.headers.get("x-tollgate-cache")).toBe("miss");
    const ownOnly = await cachingToken(userId, 60, "token");
    expect((await second.handle(chatRequest(ownOnly.secret, body))).headers.get("x-tollgate-cache")).toBe("miss");
    // The group scope: tokens of two users of one routing group share answers.
    const groupBody = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    const oneMember = await cachingToken(userId, 60, "group");
    const otherMember = await cachingToken((await seed.user()).id, 60, "group");
    await (await first.handle(chatRequest(oneMember.secret, groupBody))).text();
    expect((await second.handle(chatRequest(otherMember.secret, groupBody))).headers.get("x-tollgate-cache")).toBe("hit");
    // ...but the user scope of either member does not see the group's entry.
    const userScoped = await cachingToken(userId, 60, "user");
    expect((await second.handle(chatRequest(userScoped.secret, groupBody))).headers.get("x-tollgate-cache")).toBe("miss");
  });

  test("the team scope shares answers between the tokens of one team, never with another team's or a user-scoped token", async () => {
    const [red, blue] = await database.handle.db
      .insert(teams)
      .values([{ name: `red-${crypto.randomUUID().slice(0, 8)}` }, { name: `blue-${crypto.randomUUID().slice(0, 8)}` }])
      .returning({ id: teams.id });
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    const redMember = await cachingToken(userId, 60, "team", red!.id);
    const otherRedMember = await cachingToken((await seed.user()).id, 60, "team", red!.id);
    const blueMember = await cachingToken((await seed.user()).id, 60, "team", blue!.id);
    await (await first.handle(chatRequest(redMember.secret, body))).text();
    expect((await second.handle(chatRequest(otherRedMember.secret, body))).headers.get("x-tollgate-cache")).toBe("hit");
    expect((await second.handle(chatRequest(blueMember.secret, body))).headers.get("x-tollgate-cache")).toBe("miss");
    // The same owner's user-scoped token of the same team does not read the team's entry either.
    const userScoped = await cachingToken(userId, 60, "user", red!.id);
    expect((await second.handle(chatRequest(userScoped.secret, body))).headers.get("x-tollgate-cache")).toBe("miss");
  });

  test("errors are never cached, and a token without the setting is never cached unless the call asks", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    upstream.enqueue({ kind: "error", status: 400 });
    expect((await first.handle(chatRequest(token.secret, body))).status).toBe(400);
    const calls = upstream.requests.length;
    const retried = await second.handle(chatRequest(token.secret, body));
    expect(retried.status).toBe(200);
    expect(retried.headers.get("x-tollgate-cache")).toBe("miss");
    expect(upstream.requests.length).toBe(calls + 1);

    const plain = await seed.token({ userId });
    const plainBody = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    const untouched = await first.handle(chatRequest(plain.secret, plainBody));
    expect(untouched.headers.get("x-tollgate-cache")).toBeNull();
    await untouched.text();
    const again = await second.handle(chatRequest(plain.secret, plainBody));
    expect(again.headers.get("x-tollgate-cache")).toBeNull();
    const [log] = (await requestLogsOf(database.handle, second, plain.row.id)).slice(-1);
    expect(log!.responseCache).toBeNull();
  });

  test("a malformed x-tollgate-cache header is refused with 400 in the client's format", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] });
    const response = await first.handle(chatRequest(token.secret, body, { "x-tollgate-cache": "sometimes" }));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("x-tollgate-cache");
    const ttl = await first.handle(chatRequest(token.secret, body, { "x-tollgate-cache-ttl": "-5" }));
    expect(ttl.status).toBe(400);
    for (const garbage of ["0x10", "1e3", "1.0", "", "9".repeat(10_000), "NaN", "Infinity"]) {
      const refused = await first.handle(chatRequest(token.secret, body, { "x-tollgate-cache-ttl": garbage }));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("x-tollgate-cache-ttl");
    }
  });
});

describe("exact response cache in process (no Redis)", () => {
  test("a hit on the instance that stored the answer, a miss on another instance", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, messages: [{ role: "user", content: uniquePrompt() }] });
    const stored = await alone.handle(chatRequest(token.secret, body));
    expect(stored.headers.get("x-tollgate-cache")).toBe("miss");
    const original = await stored.text();
    const calls = upstream.requests.length;
    const hit = await alone.handle(chatRequest(token.secret, body));
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(await hit.text()).toBe(original);
    expect(upstream.requests.length).toBe(calls);
    const elsewhere = await first.handle(chatRequest(token.secret, body));
    expect(elsewhere.headers.get("x-tollgate-cache")).toBe("miss");
  });

  test("a streamed Messages call is replayed as the same Anthropic event stream", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: "user", content: uniquePrompt() }] });
    const request = () =>
      new Request("http://gateway.test/v1/messages", { method: "POST", headers: { "x-api-key": token.secret, "content-type": "application/json", "anthropic-version": "2023-06-01" }, body });
    upstream.enqueue({ kind: "ok", content: "claude style words" });
    const miss = await alone.handle(request());
    expect(miss.headers.get("x-tollgate-cache")).toBe("miss");
    const original = await miss.text();
    expect(original).toContain("event: message_stop");
    const calls = upstream.requests.length;
    const hit = await alone.handle(request());
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(await hit.text()).toBe(original);
    expect(upstream.requests.length).toBe(calls);
  });

  test("embeddings are cached too", async () => {
    const token = await cachingToken();
    const body = JSON.stringify({ model: "embedding-model", input: uniquePrompt() });
    const request = () =>
      new Request("http://gateway.test/v1/embeddings", { method: "POST", headers: { authorization: `Bearer ${token.secret}`, "content-type": "application/json" }, body });
    const miss = await alone.handle(request());
    expect(miss.status).toBe(200);
    const original = await miss.text();
    const hit = await alone.handle(request());
    expect(hit.headers.get("x-tollgate-cache")).toBe("hit");
    expect(await hit.text()).toBe(original);
  });
});
