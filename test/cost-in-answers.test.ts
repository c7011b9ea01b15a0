import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type GatewayStack, waitFor } from "./helpers/gateway-fixture";
import { startGatewayStack } from "./helpers/gateway-fixture";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// A bound on hangs (a busy 2-core machine loads the tokenizer slowly), not a tuned timing.
setDefaultTimeout(60_000);

let stack: GatewayStack;
let anthropic: FakeAnthropicUpstream;

function chat(key: string, body: Record<string, unknown> = {}) {
  return stack.gateway.handle(
    new Request("http://gateway.test/v1/chat/completions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", max_tokens: 50, messages: [{ role: "user", content: "hi" }], ...body }),
    }),
  );
}

beforeAll(async () => {
  stack = await startGatewayStack({ upstream: { chunkDelayMs: 0 } });
  await stack.seed.channel({ baseUrl: stack.upstream.url, models: ["gpt-4o-mini"] });
  // $3 per million prompt tokens, $7 per million completion tokens.
  await stack.seed.price("gpt-4o-mini", 3, 7);
  anthropic = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-cost" });
  await stack.seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-cost", models: ["claude-sonnet"], modelMapping: { "claude-sonnet": "claude-sonnet-4-5" } });
  // $3 per million prompt tokens, $15 per million completion tokens, $0.30 per million cached.
  await stack.seed.price("claude-sonnet", 3, 15, 0.3);
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await anthropic?.close();
}, SETUP_TIMEOUT_MS);

/** The data of a streamed answer's events, parsed (the [DONE] marker left out). */
async function streamedChunks(response: Response): Promise<Array<Record<string, any>>> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((event) => event.replace(/^data: /, "").trim())
    .filter((data) => data && data !== "[DONE]")
    .map((data) => JSON.parse(data));
}

async function loggedCost(tokenId: number): Promise<number> {
  const [log] = await waitFor(async () => {
    await stack.gateway.services.usage.flush();
    const rows = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId));
    return rows.length > 0 ? rows : null;
  }, "the request log row");
  return log!.cost;
}

describe("x-tollgate-cost-usd", () => {
  test("a whole answer carries its exact cost, the one its request-log row is billed", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "hello", promptTokens: 1_234, completionTokens: 567 });
    const response = await chat(token.secret);
    expect(response.status).toBe(200);
    // 1,234 x 3 + 567 x 7 = 7,671 micro-USD.
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.007671");
    const [log] = await waitFor(async () => {
      await stack.gateway.services.usage.flush();
      const rows = await stack.database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, token.row.id));
      return rows.length > 0 ? rows : null;
    }, "the request log row");
    expect(log!.cost).toBe(7_671);
  });

  test("a refused call says it cost nothing", async () => {
    const token = await stack.seed.token({ userId: stack.userId, quotaLimit: 1 });
    const response = await chat(token.secret);
    expect(response.status).toBe(429);
    expect(response.headers.get("x-tollgate-cost-usd")).toBe("0.000000");
  });

  test("a streamed answer has no cost header: its headers leave before its usage is known", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    const response = await chat(token.secret, { stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-cost-usd")).toBeNull();
    await response.text();
  });
});

describe("cost in the usage chunk of a stream", () => {
  test("a client that asks for usage gets the call's exact cost as usage.cost, the figure its log row is billed", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "hello there", promptTokens: 1_234, completionTokens: 567 });
    const response = await chat(token.secret, { stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const chunks = await streamedChunks(response);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 1_234, completion_tokens: 567, total_tokens: 1_801, cost: 0.007671 });
    // Only the usage chunk carries it.
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage?.cost === undefined)).toBe(true);
    expect(await loggedCost(token.row.id)).toBe(7_671);
  });

  test("a client that did not ask for usage gets no usage chunk and so no cost", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    stack.upstream.enqueue({ kind: "ok", content: "hello there", promptTokens: 1_234, completionTokens: 567 });
    const response = await chat(token.secret, { stream: true });
    const chunks = await streamedChunks(response);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(await loggedCost(token.row.id)).toBe(7_671);
  });

  test("a translated channel's usage chunk carries the cost billed, cached tokens at their price", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    anthropic.enqueue({ kind: "text", text: "Bonjour", inputTokens: 100, outputTokens: 20, cacheReadTokens: 1_000 });
    const response = await chat(token.secret, { model: "claude-sonnet", stream: true, stream_options: { include_usage: true } });
    expect(response.status).toBe(200);
    const chunks = await streamedChunks(response);
    const usageChunks = chunks.filter((chunk) => chunk.usage);
    expect(usageChunks).toHaveLength(1);
    // 100 x $3/1M + 1,000 x $0.30/1M + 20 x $15/1M = 300 + 300 + 300 micro-USD.
    expect(usageChunks[0]!.usage).toMatchObject({ prompt_tokens: 1_100, completion_tokens: 20, cost: 0.0009 });
    expect(chunks.at(-1)).toBe(usageChunks[0]);
    expect(await loggedCost(token.row.id)).toBe(900);
  });
});
