import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import type { FakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import type { FreshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, waitFor, type GatewayStack, startGatewayStack } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: GatewayStack;
let database: FreshDatabase;
let upstream: FakeOpenAIUpstream;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;
let secret: string;
let tokenId: number;

const BASE = "http://gateway.test";

function post(path: string, body: unknown, key: string | null = secret, headers: Record<string, string> = {}) {
  return gateway.handle(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

async function logsOf(token: number) {
  return database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token)).orderBy(asc(requestLogs.id));
}

beforeAll(async () => {
  stack = await startGatewayStack({
    upstream: { requireApiKey: "sk-upstream-test-key" },
    gateway: { socketAddress: "203.0.113.7", maxBodyBytes: 64 * 1024 },
  });
  ({ database, upstream, gateway, seed, userId } = stack);
  await seed.channel({ baseUrl: upstream.url, models: ["gpt-4o-mini", "text-embedding-3-small", "alias-model"], modelMapping: { "alias-model": "gpt-4o" } });
  await seed.channel({ baseUrl: upstream.url, models: ["offline-model"], status: "disabled" });
  await seed.price("gpt-4o-mini", 1, 2);
  const created = await seed.token({ userId });
  secret = created.secret;
  tokenId = created.row.id;
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("chat completions through app.handle", () => {
  test("a non-streamed call returns the upstream's answer and records usage and cost", async () => {
    upstream.enqueue({ kind: "ok", content: "Hi there", promptTokens: 100_000, completionTokens: 50_000 });
    const response = await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]!.message.content).toBe("Hi there");
    const forwarded = upstream.requests.at(-1)!;
    expect(forwarded.headers.authorization).toBe("Bearer sk-upstream-test-key");
    await gateway.services.usage.flush();
    const [log] = await logsOf(tokenId);
    expect(log).toMatchObject({ model: "gpt-4o-mini", promptTokens: 100_000, completionTokens: 50_000, status: 200, stream: false, clientIp: "203.0.113.7" });
    // 100k tokens at $1/1M + 50k at $2/1M = $0.10 + $0.10
    expect(log!.cost).toBe(200_000);
    expect((await seed.tokenRow(tokenId)).usedQuota).toBe(200_000);
  });

  test("unknown request fields pass through untouched and the model is mapped per channel", async () => {
    const response = await post("/v1/chat/completions", {
      model: "alias-model",
      messages: [{ role: "user", content: "x" }],
      temperature: 0.3,
      vendor_specific: { keep: [1, 2] },
    });
    expect(response.status).toBe(200);
    const forwarded = upstream.requests.at(-1)!.body;
    expect(forwarded.model).toBe("gpt-4o");
    expect(forwarded.vendor_specific).toEqual({ keep: [1, 2] });
    expect(forwarded.temperature).toBe(0.3);
  });

  test("a streamed call relays the upstream's events and drops the usage chunk the client did not ask for", async () => {
    upstream.enqueue({ kind: "ok", content: "one two three", promptTokens: 7, completionTokens: 3 });
    const response = await post("/v1/chat/completions", { model: "gpt-4o-mini", stream: true, messages: [{ role: "user", content: "count" }] });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.slice("data: ".length)));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("")).toBe("one two three");
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
    // The gateway asked the upstream for usage although the client did not.
    expect(upstream.requests.at(-1)!.body.stream_options).toEqual({ include_usage: true });
    await gateway.services.usage.flush();
    const logs = await logsOf(tokenId);
    expect(logs.at(-1)).toMatchObject({ stream: true, promptTokens: 7, completionTokens: 3, status: 200, usageEstimated: false });
    expect(logs.at(-1)!.firstTokenMs).not.toBeNull();
  });
});

describe("errors", () => {
  test("no key, unknown key and a path without /v1 answer in the OpenAI envelope", async () => {
    const missing = await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [] }, null);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("missing_api_key");
    const unknown = await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [] }, "sk-not-a-real-key");
    expect(unknown.status).toBe(401);
    const noPrefix = await post("/chat/completions", { model: "gpt-4o-mini", messages: [] });
    expect(noPrefix.status).toBe(404);
    const body = (await noPrefix.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  });

  test("malformed JSON, missing fields, an oversized body, unknown and unavailable models", async () => {
    expect((await post("/v1/chat/completions", "{not json")).status).toBe(400);
    const noModel = await post("/v1/chat/completions", { messages: [{ role: "user", content: "x" }] });
    expect(noModel.status).toBe(400);
    expect(((await noModel.json()) as { error: { param: string } }).error.param).toBe("model");
    const noMessages = await post("/v1/chat/completions", { model: "gpt-4o-mini" });
    expect(noMessages.status).toBe(400);
    expect((await post("/v1/chat/completions", { model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(70 * 1024) }] })).status).toBe(413);
    const unknownModel = await post("/v1/chat/completions", { model: "nope", messages: [{ role: "user", content: "x" }] });
    expect(unknownModel.status).toBe(404);
    expect(((await unknownModel.json()) as { error: { code: string } }).error.code).toBe("model_not_found");
    const offline = await post("/v1/chat/completions", { model: "offline-model", messages: [{ role: "user", content: "x" }] });
    expect(offline.status).toBe(503);
    expect(((await offline.json()) as { error: { code: string } }).error.code).toBe("no_available_channel");
  });
});

describe("legacy completions and health", () => {
  test("POST /v1/completions is relayed to an OpenAI-compatible channel and billed", async () => {
    upstream.enqueue({ kind: "ok", content: " there was a gateway", promptTokens: 4, completionTokens: 5 });
    const response = await post("/v1/completions", { model: "gpt-4o-mini", prompt: "Once upon a time", max_tokens: 5 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { object: string; choices: Array<{ text: string }> };
    expect(body.object).toBe("text_completion");
    expect(body.choices[0]!.text).toBe(" there was a gateway");
    const forwarded = upstream.requests.at(-1)!;
    expect(forwarded.path).toBe("/v1/completions");
    expect(forwarded.body.prompt).toBe("Once upon a time");
    await gateway.services.usage.flush();
    expect((await logsOf(tokenId)).at(-1)).toMatchObject({ endpoint: "completions", promptTokens: 4, completionTokens: 5, status: 200 });
    const missingPrompt = await post("/v1/completions", { model: "gpt-4o-mini" });
    expect(missingPrompt.status).toBe(400);
    expect(((await missingPrompt.json()) as { error: { param: string } }).error.param).toBe("prompt");
  });

  test("/healthz answers while alive and /readyz once the database and caches are ready", async () => {
    expect((await gateway.handle(new Request(`${BASE}/healthz`))).status).toBe(200);
    const ready = await gateway.handle(new Request(`${BASE}/readyz`));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: "ready", database: true, caches: true });
  });
});

describe("vendor presets", () => {
  test("a vendor that rejects stream_options is not sent it, and its stream is billed from a local count", async () => {
    await seed.channel({ baseUrl: upstream.url, models: ["mistral-small"], config: { preset: "mistral" } });
    upstream.enqueue({ kind: "ok", content: "bonjour tout le monde", omitUsage: true });
    const response = await post("/v1/chat/completions", {
      model: "mistral-small",
      stream: true,
      stream_options: { include_usage: true },
      store: true,
      messages: [{ role: "user", content: "salut" }],
    });
    expect(response.status).toBe(200);
    await response.text();
    const forwarded = upstream.requests.at(-1)!.body;
    expect(forwarded.stream_options).toBeUndefined();
    expect(forwarded.store).toBeUndefined();
    // The local count settles asynchronously after the stream ends: wait for its row.
    const row = await waitFor(async () => {
      await gateway.services.usage.flush();
      return (await logsOf(tokenId)).find((log) => log.model === "mistral-small");
    }, "the mistral log row");
    expect(row).toMatchObject({ usageEstimated: true, status: 200 });
    expect(row.completionTokens).toBeGreaterThan(0);
  });
});
