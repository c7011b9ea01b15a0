import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { usageHourly } from "@tollgate/db";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./helpers/fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { sdkClients, type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * Every prompt-cache class billed at its own price, exact to the micro-USD, on each provider that reports
 * cache tokens, streamed and not. Prices are the providers' list prices (USD per 1M tokens):
 * Claude Sonnet $3 in, $15 out, $0.30 cache read, $3.75 5-minute write, $6 1-hour write; GPT-4o $2.50 in,
 * $10 out, $1.25 cache read; Gemini 2.5 Flash $0.30 in, $2.50 out, $0.075 cache read.
 */
let stack: StackWith<{ anthropic: FakeAnthropicUpstream; openai: FakeOpenAIUpstream; responses: FakeOpenAIResponsesUpstream; gemini: FakeGeminiUpstream }>;
let anthropic: FakeAnthropicUpstream;
let openai: FakeOpenAIUpstream;
let responses: FakeOpenAIResponsesUpstream;
let gemini: FakeGeminiUpstream;
let chat: OpenAI;
let messages: Anthropic;
let tokenId: number;

const lastLog = () => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    anthropic: await keep(startFakeAnthropicUpstream({ requireApiKey: "sk-ant-test" })),
    openai: await keep(startFakeOpenAIUpstream()),
    responses: await keep(startFakeOpenAIResponsesUpstream({ requireApiKey: "sk-native" })),
    gemini: await keep(startFakeGeminiUpstream({ requireApiKey: "gemini-key" })),
  }));
  ({ anthropic, openai, responses, gemini } = stack.fakes);
  const { seed, userId } = stack;
  const baseURL = await stack.gateway.listen();
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-test", models: ["claude-sonnet"] });
  await seed.channel({ name: "claude-auto", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-test", models: ["claude-auto"], config: { autoCacheBreakpoints: true } });
  await seed.channel({ name: "openai", baseUrl: openai.url, models: ["gpt-4o"] });
  await seed.channel({ name: "responses", baseUrl: responses.url, apiKey: "sk-native", models: ["gpt-4o-responses"], config: { preset: "openai" } });
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: gemini.url, apiKey: "gemini-key", models: ["gemini-flash"], modelMapping: { "gemini-flash": "gemini-2.5-flash" } });
  await seed.price("claude-sonnet", 3, 15, 0.3, { cacheWrite: 3.75, cacheWrite1h: 6 });
  await seed.price("gpt-4o", 2.5, 10, 1.25);
  await seed.price("gpt-4o-responses", 2.5, 10, 1.25);
  await seed.price("gemini-flash", 0.3, 2.5, 0.075);
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  ({ openai: chat, anthropic: messages } = sdkClients(baseURL, token.secret));
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

/** 100 uncached, 1,000 read, 400 written for 5 minutes, 200 for an hour, 20 out. */
const claudeUsage = { inputTokens: 100, cacheReadTokens: 1000, cacheCreationTokens: 400, cacheWrite1hTokens: 200, outputTokens: 20 } as const;
// 100 x 3 + 1,000 x 0.30 + 400 x 3.75 + 200 x 6 + 20 x 15 = 300 + 300 + 1,500 + 1,200 + 300 micro-USD.
const claudeCost = 3600;
// The same 1,700 prompt tokens at the input price: 5,100 + 300 out = 5,400; the cache saved 1,800.
const claudeLog = { promptTokens: 1700, completionTokens: 20, cachedTokens: 1000, cacheWriteTokens: 400, cacheWrite1hTokens: 200, cost: claudeCost, cacheSavings: 1800 };

describe("an Anthropic channel bills every cache class at its price", () => {
  test("an OpenAI client's answer carries the cache classes in prompt_tokens_details, and the log keeps them", async () => {
    anthropic.enqueue({ kind: "text", text: "Cached hello", ...claudeUsage });
    const completion = await chat.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1700,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 600, cache_write_1h_tokens: 200 },
    });
    expect(await lastLog()).toMatchObject(claudeLog);
  });

  test("streamed to an OpenAI client, the same classes and the same cost", async () => {
    anthropic.enqueue({ kind: "text", text: "Cached hello again", ...claudeUsage });
    const stream = await chat.chat.completions.create({
      model: "claude-sonnet",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) if (chunk.usage) usage = chunk.usage;
    expect(usage?.prompt_tokens_details).toMatchObject({ cached_tokens: 1000, cache_write_tokens: 600, cache_write_1h_tokens: 200 });
    expect(await lastLog()).toMatchObject({ ...claudeLog, stream: true });
  });

  test("an Anthropic client on the native path gets Anthropic's usage as it came and is billed by class", async () => {
    anthropic.enqueue({ kind: "text", text: "Native", ...claudeUsage });
    const message = await messages.messages.create({ model: "claude-sonnet", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    expect(message.usage).toMatchObject({
      input_tokens: 100,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 600,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 200 },
    });
    expect(await lastLog()).toMatchObject({ ...claudeLog, endpoint: "messages" });
  });

  test("a native Anthropic stream is billed by class from message_start's usage", async () => {
    anthropic.enqueue({ kind: "text", text: "Native stream", ...claudeUsage });
    const stream = messages.messages.stream({ model: "claude-sonnet", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    const final = await stream.finalMessage();
    expect(final.usage.cache_creation_input_tokens).toBe(600);
    expect(await lastLog()).toMatchObject({ ...claudeLog, endpoint: "messages", stream: true });
  });

  test("a write total without its lifetime split is billed as 5-minute writes", async () => {
    anthropic.enqueue({ kind: "text", text: "Old shape", inputTokens: 100, cacheCreationTokens: 1000, outputTokens: 0 });
    await chat.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "Hi" }] });
    // 100 x 3 + 1,000 x 3.75 = 4,050; against 3,300 at the input price.
    expect(await lastLog()).toMatchObject({ promptTokens: 1100, cachedTokens: 0, cacheWriteTokens: 1000, cacheWrite1hTokens: 0, cost: 4050, cacheSavings: -750 });
  });
});

describe("an OpenAI channel bills cache reads from prompt_tokens_details", () => {
  // 2,006 prompt of which 1,920 cached, 300 out: 86 x 2.5 + 1,920 x 1.25 + 300 x 10 = 215 + 2,400 + 3,000.
  const openaiLog = { promptTokens: 2006, completionTokens: 300, cachedTokens: 1920, cacheWriteTokens: 0, cacheWrite1hTokens: 0, cost: 5615, cacheSavings: 2400 };

  test("not streamed", async () => {
    openai.enqueue({ kind: "ok", content: "ok", promptTokens: 2006, completionTokens: 300, cachedTokens: 1920 });
    const completion = await chat.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(1920);
    expect(await lastLog()).toMatchObject(openaiLog);
  });

  test("streamed", async () => {
    openai.enqueue({ kind: "ok", content: "ok", promptTokens: 2006, completionTokens: 300, cachedTokens: 1920 });
    const stream = await chat.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_usage: true } });
    for await (const _chunk of stream);
    expect(await lastLog()).toMatchObject({ ...openaiLog, stream: true });
  });

  test("an Anthropic client of an OpenAI channel gets the cache reads as cache_read_input_tokens", async () => {
    openai.enqueue({ kind: "ok", content: "ok", promptTokens: 2006, completionTokens: 300, cachedTokens: 1920 });
    const message = await messages.messages.create({ model: "gpt-4o", max_tokens: 400, messages: [{ role: "user", content: "Hi" }] });
    expect(message.usage).toMatchObject({ input_tokens: 86, cache_read_input_tokens: 1920, cache_creation_input_tokens: 0 });
    expect(await lastLog()).toMatchObject({ ...openaiLog, endpoint: "messages" });
  });

  test("the Responses API's input_tokens_details.cached_tokens, streamed and not", async () => {
    responses.enqueue({ kind: "text", text: "ok", inputTokens: 2006, outputTokens: 300, cachedTokens: 1920 });
    await chat.responses.create({ model: "gpt-4o-responses", input: "Hi" });
    expect(await lastLog()).toMatchObject({ ...openaiLog, endpoint: "responses" });
    responses.enqueue({ kind: "text", text: "ok", inputTokens: 2006, outputTokens: 300, cachedTokens: 1920 });
    const stream = await chat.responses.create({ model: "gpt-4o-responses", input: "Hi", stream: true });
    for await (const _event of stream);
    expect(await lastLog()).toMatchObject({ ...openaiLog, endpoint: "responses", stream: true });
  });
});

describe("a Gemini channel bills cachedContentTokenCount as cache reads", () => {
  // 10,000 prompt of which 8,000 cached, 100 out: 2,000 x 0.3 + 8,000 x 0.075 + 100 x 2.5 = 600 + 600 + 250.
  const geminiLog = { promptTokens: 10_000, completionTokens: 100, cachedTokens: 8000, cost: 1450, cacheSavings: 1800 };

  test("not streamed", async () => {
    gemini.enqueue({ kind: "text", text: "ok", promptTokens: 10_000, candidatesTokens: 100, cachedTokens: 8000 });
    const completion = await chat.chat.completions.create({ model: "gemini-flash", messages: [{ role: "user", content: "Hi" }] });
    expect(completion.usage?.prompt_tokens_details?.cached_tokens).toBe(8000);
    expect(await lastLog()).toMatchObject(geminiLog);
  });

  test("streamed", async () => {
    gemini.enqueue({ kind: "text", text: "ok then", promptTokens: 10_000, candidatesTokens: 100, cachedTokens: 8000 });
    const stream = await chat.chat.completions.create({ model: "gemini-flash", messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_usage: true } });
    for await (const _chunk of stream);
    expect(await lastLog()).toMatchObject({ ...geminiLog, stream: true });
  });
});

describe("the hourly rollup", () => {
  test("sums every cache class and the savings of the calls above", async () => {
    await stack.gateway.services.usage.flush();
    const rows = await stack.database.handle.db.select().from(usageHourly).where(eq(usageHourly.tokenId, tokenId));
    const claude = rows.filter((row) => row.model === "claude-sonnet");
    const sum = (key: "cachedTokens" | "cacheWriteTokens" | "cacheWrite1hTokens" | "cacheSavings" | "cost") => claude.reduce((total, row) => total + row[key], 0);
    // Four calls of claudeUsage and one of 1,000 5-minute writes.
    expect([sum("cachedTokens"), sum("cacheWriteTokens"), sum("cacheWrite1hTokens"), sum("cost"), sum("cacheSavings")]).toEqual([
      4000,
      4 * 400 + 1000,
      800,
      4 * claudeCost + 4050,
      4 * 1800 - 750,
    ]);
  });
});

describe("cache_control through the gateway", () => {
  const tool: OpenAI.Chat.Completions.ChatCompletionTool = { type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } };

  test("an OpenAI client's cache_control parts reach Anthropic as breakpoints; an OpenAI channel gets none", async () => {
    const hinted = [
      { role: "system", content: [{ type: "text", text: "Long stable instructions.", cache_control: { type: "ephemeral", ttl: "1h" } }] },
      { role: "user", content: "Hi" },
    ] as unknown as OpenAI.Chat.Completions.ChatCompletionMessageParam[];
    await chat.chat.completions.create({ model: "claude-sonnet", messages: hinted });
    expect(anthropic.requests.at(-1)!.body.system).toEqual([{ type: "text", text: "Long stable instructions.", cache_control: { type: "ephemeral", ttl: "1h" } }]);
    await chat.chat.completions.create({ model: "gpt-4o", messages: hinted });
    expect(JSON.stringify(openai.requests.at(-1)!.body)).not.toContain("cache_control");
  });

  test("more than four breakpoints are refused with a 400 in OpenAI's error shape, before any upstream call", async () => {
    const before = anthropic.requests.length;
    const parts = Array.from({ length: 5 }, (_, index) => ({ type: "text", text: `part ${index}`, cache_control: { type: "ephemeral" } }));
    const failure = await chat.chat.completions
      .create({ model: "claude-sonnet", messages: [{ role: "user", content: parts }] as unknown as OpenAI.Chat.Completions.ChatCompletionMessageParam[] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("at most 4");
    expect(anthropic.requests.length).toBe(before);
  });

  test("a channel with automatic breakpoints marks the tools and the system prompt of a client that sent none", async () => {
    await chat.chat.completions.create({ model: "claude-auto", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], tools: [tool] });
    const sent = anthropic.requests.at(-1)!.body;
    expect(sent.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(sent.system).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]);
  });
});
