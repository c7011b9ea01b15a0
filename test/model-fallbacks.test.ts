import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cliOperator, updateModelRouting } from "../packages/admin/src/index";
import { requestLogs } from "@tollgate/db";
import { countTextTokens } from "../apps/gateway/src/accounting/count-tokens";
import { asc, eq } from "drizzle-orm";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * Fallbacks across models: "big" falls back to "small", "small" to "big" and "tiny" (a loop the gateway
 * must not follow). Each model has its own fake upstream, so that a test sees which one served.
 */
let database: FreshDatabase;
let gateway: GatewayUnderTest;
let seed: ReturnType<typeof seeder>;
let userId: number;
let big: FakeOpenAIUpstream;
let small: FakeOpenAIUpstream;
let tiny: FakeOpenAIUpstream;
let bigChannel: number;
let smallChannel: number;
let tinyChannel: number;

function post(path: string, secret: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

const hello = [{ role: "user", content: "hi" }];

async function token(allowedModels?: string[]) {
  return seed.token({ userId, allowedModels });
}

async function logsOf(tokenId: number) {
  await gateway.services.usage.flush();
  return database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
}

async function routing(model: string, settings: { fallbacks?: string[] | null; contextWindow?: number | null }) {
  await updateModelRouting(database.handle.db, cliOperator, { model, ...settings });
  await waitFor(async () => {
    const price = (await gateway.services.catalog.get()).prices.get(model);
    const fallbacksSeen = settings.fallbacks === undefined || JSON.stringify(price?.fallbacks ?? null) === JSON.stringify(settings.fallbacks?.length ? settings.fallbacks : null);
    const windowSeen = settings.contextWindow === undefined || price?.contextWindow === settings.contextWindow;
    return fallbacksSeen && windowSeen;
  }, `the routing of ${model} in the catalog`);
}

beforeAll(async () => {
  database = await freshDatabase();
  [big, small, tiny] = await Promise.all([startFakeOpenAIUpstream(), startFakeOpenAIUpstream(), startFakeOpenAIUpstream()]);
  gateway = await startGateway(database.handle, { channelHealth: { failureThreshold: 1000, windowMs: 60_000, cooldownMs: 1, maxCooldownMs: 1 } });
  seed = seeder(database.handle, gateway.secretBox, [gateway]);
  userId = (await seed.user()).id;
  bigChannel = (await seed.channel({ name: "big", baseUrl: big.url, models: ["big"] })).id;
  smallChannel = (await seed.channel({ name: "small", baseUrl: small.url, models: ["small"] })).id;
  tinyChannel = (await seed.channel({ name: "tiny", baseUrl: tiny.url, models: ["tiny"] })).id;
  // $10 / $20 per 1M tokens for the big model, $1 / $2 for the small one, $0.5 / $0.5 for the tiny one.
  await seed.price("big", 10, 20);
  await seed.price("small", 1, 2);
  await seed.price("tiny", 0.5, 0.5);
  await routing("big", { fallbacks: ["small"] });
  await routing("small", { fallbacks: ["big", "tiny"] });
  // The context-window checks count on the counting worker: started (its vocabulary loaded) here, once.
  await countTextTokens("warm up");
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([big?.close(), small?.close(), tiny?.close()]);
  await database?.drop();
}, SETUP_TIMEOUT_MS);

describe("fallbacks across models", () => {
  test("when every channel of the model fails, its fallback model serves, named in the body and x-tollgate-model, billed at its price", async () => {
    const { row, secret } = await token();
    big.enqueue({ kind: "error", status: 503 });
    small.enqueue({ kind: "ok", content: "from small", promptTokens: 1000, completionTokens: 500 });
    const response = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-model")).toBe("small");
    const body = (await response.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    expect(body.model).toBe("small");
    expect(body.choices[0]!.message.content).toBe("from small");
    // 1000 x $1 + 500 x $2 per 1M tokens: 2,000 micro-USD (the big model's price would be 20,000).
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.002000");
    const [log] = await logsOf(row.id);
    expect(log).toMatchObject({ model: "small", requestedModel: "big", channelId: smallChannel, channelsTried: [bigChannel, smallChannel], cost: 2_000, status: 200 });
    expect((small.requests.at(-1)!.body as { model: string }).model).toBe("small");
  });

  test("a call its own model serves keeps one model in its log row and names it in x-tollgate-model", async () => {
    const { row, secret } = await token();
    big.enqueue({ kind: "ok", promptTokens: 100, completionTokens: 10 });
    const response = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-model")).toBe("big");
    const [log] = await logsOf(row.id);
    expect(log).toMatchObject({ model: "big", requestedModel: null, cost: 100 * 10 + 10 * 20 });
  });

  test("a 400 from the upstream is the client's and never falls back", async () => {
    const { secret } = await token();
    const smallBefore = small.requests.length;
    big.enqueue({ kind: "error", status: 400 });
    const response = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
    expect(response.status).toBe(400);
    expect(small.requests.length).toBe(smallBefore);
  });

  test("a fallback model the key may not use is passed over: the model's own failure is the answer", async () => {
    const { row, secret } = await token(["big"]);
    const smallBefore = small.requests.length;
    big.enqueue({ kind: "error", status: 503 });
    const response = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
    expect(response.status).toBe(503);
    expect(small.requests.length).toBe(smallBefore);
    const [log] = await logsOf(row.id);
    expect(log).toMatchObject({ model: "big", requestedModel: null, status: 503, cost: 0 });
  });

  test("the chain is followed through each model's own list, each model once: small -> big (already tried) -> tiny", async () => {
    const { row, secret } = await token();
    const bigBefore = big.requests.length;
    small.enqueue({ kind: "error", status: 500 });
    tiny.enqueue({ kind: "ok", content: "from tiny", promptTokens: 2000, completionTokens: 2000 });
    // The key may use small and tiny but not big: big is passed over, tiny serves.
    const allowed = await token(["small", "tiny"]);
    const refused = await post("/v1/chat/completions", allowed.secret, { model: "small", messages: hello });
    expect(refused.status).toBe(200);
    expect(refused.headers.get("x-tollgate-model")).toBe("tiny");
    expect(big.requests.length).toBe(bigBefore);
    // Every model failing: each upstream is called once, and the last failure is the answer.
    big.enqueue({ kind: "error", status: 503 });
    small.enqueue({ kind: "error", status: 502 });
    tiny.enqueue({ kind: "error", status: 500 });
    const counts = [big.requests.length, small.requests.length, tiny.requests.length];
    const failed = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
    expect(failed.status).toBe(500);
    expect([big.requests.length, small.requests.length, tiny.requests.length]).toEqual(counts.map((count) => count + 1));
    const [log] = await logsOf(row.id);
    expect(log).toMatchObject({ model: "tiny", requestedModel: "big", channelsTried: [bigChannel, smallChannel, tinyChannel], cost: 0 });
  });

  test("a prompt past the model's context window goes to the fallback model without reaching its own upstream", async () => {
    await routing("big", { contextWindow: 50 });
    try {
      const { row, secret } = await token();
      const bigBefore = big.requests.length;
      small.enqueue({ kind: "ok", promptTokens: 400, completionTokens: 1 });
      const long = Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ");
      const response = await post("/v1/chat/completions", secret, { model: "big", messages: [{ role: "user", content: long }] });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-tollgate-model")).toBe("small");
      expect(big.requests.length).toBe(bigBefore);
      const [log] = await logsOf(row.id);
      expect(log).toMatchObject({ model: "small", requestedModel: "big", channelsTried: [smallChannel], cost: 400 * 1 + 1 * 2 });
      // A short prompt fits: the big model serves it.
      const short = await post("/v1/chat/completions", secret, { model: "big", messages: hello });
      expect(short.headers.get("x-tollgate-model")).toBe("big");
    } finally {
      await routing("big", { contextWindow: null });
    }
  });

  test("when no model of the chain fits the prompt, the model asked for is sent it after all", async () => {
    await routing("tiny", { contextWindow: 10 });
    try {
      const { secret } = await token(["tiny"]);
      const before = tiny.requests.length;
      const long = Array.from({ length: 300 }, (_, index) => `word${index}`).join(" ");
      const response = await post("/v1/chat/completions", secret, { model: "tiny", messages: [{ role: "user", content: long }] });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-tollgate-model")).toBe("tiny");
      expect(tiny.requests.length).toBe(before + 1);
    } finally {
      await routing("tiny", { contextWindow: null });
    }
  });

  test("a streamed answer from a fallback model names it in every chunk and in x-tollgate-model, and is billed at its price", async () => {
    const { row, secret } = await token();
    big.enqueue({ kind: "error", status: 429 });
    small.enqueue({ kind: "ok", content: "streamed by small", promptTokens: 1000, completionTokens: 1000 });
    const response = await post("/v1/chat/completions", secret, { model: "big", messages: hello, stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-model")).toBe("small");
    const chunks = (await response.text())
      .split("\n\n")
      .filter((frame) => frame.startsWith("data: {"))
      .map((frame) => JSON.parse(frame.slice("data: ".length)) as { model: string });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.model).toBe("small");
    const [log] = await waitFor(async () => {
      const rows = await logsOf(row.id);
      return rows.length > 0 ? rows : null;
    }, "the stream's log row");
    expect(log).toMatchObject({ model: "small", requestedModel: "big", stream: true, cost: 1000 * 1 + 1000 * 2 });
  });

  test("Anthropic's Messages, the Responses API and embeddings name the fallback model too", async () => {
    const { secret } = await token();
    big.enqueue({ kind: "error", status: 500 });
    const messages = await post("/v1/messages", secret, { model: "big", max_tokens: 10, messages: hello }, { "anthropic-version": "2023-06-01" });
    expect(messages.status).toBe(200);
    expect(messages.headers.get("x-tollgate-model")).toBe("small");
    expect(((await messages.json()) as { model: string }).model).toBe("small");

    big.enqueue({ kind: "error", status: 500 });
    const responses = await post("/v1/responses", secret, { model: "big", input: "hi" });
    expect(responses.status).toBe(200);
    expect(responses.headers.get("x-tollgate-model")).toBe("small");
    expect(((await responses.json()) as { model: string }).model).toBe("small");

    big.enqueue({ kind: "error", status: 500 });
    const embeddings = await post("/v1/embeddings", secret, { model: "big", input: "hi" });
    expect(embeddings.status).toBe(200);
    expect(embeddings.headers.get("x-tollgate-model")).toBe("small");
    expect(((await embeddings.json()) as { model: string }).model).toBe("small");
  });

  test("the hold is moved to the fallback model: a token's quota is charged exactly the served model's cost", async () => {
    const limited = await seed.token({ userId, quotaLimit: 1_000_000 });
    big.enqueue({ kind: "error", status: 502 });
    small.enqueue({ kind: "ok", promptTokens: 3000, completionTokens: 1000 });
    const response = await post("/v1/chat/completions", limited.secret, { model: "big", messages: hello, max_tokens: 1000 });
    expect(response.status).toBe(200);
    await gateway.services.usage.flush();
    const [log] = await logsOf(limited.row.id);
    expect(log!.cost).toBe(3000 * 1 + 1000 * 2);
    // Nothing is left held for either model once the call is settled.
    expect(gateway.services.ledger.heldFor(limited.row.id)).toBe(0);
  });
});
