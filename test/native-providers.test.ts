import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { channels } from "@tollgate/db";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { readChatStream } from "./helpers/read-chat-stream";
import { type StackWith, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ anthropic: FakeAnthropicUpstream; gemini: FakeGeminiUpstream }>;
let anthropic: FakeAnthropicUpstream;
let gemini: FakeGeminiUpstream;
let client: OpenAI;
let tokenId: number;

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

const lastLog = () => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    anthropic: await keep(startFakeAnthropicUpstream({ requireApiKey: "sk-ant-test" })),
    gemini: await keep(startFakeGeminiUpstream({ requireApiKey: "gemini-test-key" })),
  }));
  ({ anthropic, gemini } = stack.fakes);
  const { seed, userId } = stack;
  const baseURL = await stack.gateway.listen();
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-test", models: ["claude-sonnet"], modelMapping: { "claude-sonnet": "claude-sonnet-4-5" } });
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: gemini.url, apiKey: "gemini-test-key", models: ["gemini-flash", "gemini-embedding"], modelMapping: { "gemini-flash": "gemini-2.5-flash", "gemini-embedding": "gemini-embedding-001" } });
  await seed.price("claude-sonnet", 3, 15, 0.3);
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  client = new OpenAI({ apiKey: token.secret, baseURL, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("the openai client against an Anthropic channel", () => {
  test("text, with usage including cache reads, billed at the cached price", async () => {
    anthropic.enqueue({ kind: "text", text: "Bonjour from Claude", inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000 });
    const completion = await client.chat.completions.create({
      model: "claude-sonnet",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hi in French" }],
    });
    expect(completion.choices[0]!.message.content).toBe("Bonjour from Claude");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.model).toBe("claude-sonnet");
    const sent = anthropic.requests.at(-1)!;
    expect(sent.headers["x-api-key"]).toBe("sk-ant-test");
    expect(sent.body.model).toBe("claude-sonnet-4-5");
    expect(sent.body.system).toBeTruthy();
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 1100, completionTokens: 20, cachedTokens: 1000 });
    // 100 x $3/1M + 1000 x $0.30/1M + 20 x $15/1M = 300 + 300 + 300 micro-USD
    expect(log.cost).toBe(900);
  });

  test("stream", async () => {
    anthropic.enqueue({ kind: "text", text: "one two three four" });
    const stream = await client.chat.completions.create({
      model: "claude-sonnet",
      messages: [{ role: "user", content: "Count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe("one two three four");
    expect(usage?.completion_tokens).toBe(12);
  });

  test("tools: a tool_use answer arrives as tool_calls, and the tool result goes back as tool_result", async () => {
    anthropic.enqueue({ kind: "tool", name: "get_weather", input: { city: "Paris" } });
    const first = await client.chat.completions.create({
      model: "claude-sonnet",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [weatherTool],
    });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Paris" });
    expect(anthropic.requests.at(-1)!.body.tools[0]).toMatchObject({ name: "get_weather", input_schema: { type: "object" } });

    anthropic.enqueue({ kind: "text", text: "It is sunny in Paris." });
    const second = await client.chat.completions.create({
      model: "claude-sonnet",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        first.choices[0]!.message,
        { role: "tool", tool_call_id: call.id, content: "sunny, 21C" },
      ],
      tools: [weatherTool],
    });
    expect(second.choices[0]!.message.content).toBe("It is sunny in Paris.");
    const sentMessages = anthropic.requests.at(-1)!.body.messages;
    expect(sentMessages.at(-1).content[0]).toMatchObject({ type: "tool_result", tool_use_id: call.id });
  });

  test("a streamed tool call arrives as tool_call deltas that join into the arguments", async () => {
    anthropic.enqueue({ kind: "tool", name: "get_weather", input: { city: "Oslo" } });
    const stream = await client.chat.completions.create({
      model: "claude-sonnet",
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      tools: [weatherTool],
      stream: true,
    });
    const { toolName: name, toolArguments: argumentsText, finish } = await readChatStream(stream);
    expect(name).toBe("get_weather");
    expect(JSON.parse(argumentsText)).toEqual({ city: "Oslo" });
    expect(finish).toBe("tool_calls");
  });

  test("an upstream 429 is relayed as a rate limit error in the OpenAI envelope", async () => {
    anthropic.enqueue({ kind: "error", status: 429 });
    const error = await client.chat.completions
      .create({ model: "claude-sonnet", messages: [{ role: "user", content: "x" }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
  });
});

describe("the openai client against a Gemini channel", () => {
  test("text", async () => {
    gemini.enqueue({ kind: "text", text: "Gemini says hello", promptTokens: 30, candidatesTokens: 4 });
    const completion = await client.chat.completions.create({
      model: "gemini-flash",
      messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "Hello" }],
    });
    expect(completion.choices[0]!.message.content).toBe("Gemini says hello");
    const sent = gemini.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(sent.headers["x-goog-api-key"]).toBe("gemini-test-key");
    expect(sent.body.systemInstruction).toBeTruthy();
    expect(await lastLog()).toMatchObject({ promptTokens: 30, completionTokens: 4 });
  });

  test("stream", async () => {
    gemini.enqueue({ kind: "text", text: "alpha beta gamma", promptTokens: 5, candidatesTokens: 3 });
    const stream = await client.chat.completions.create({
      model: "gemini-flash",
      messages: [{ role: "user", content: "Greek letters" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe("alpha beta gamma");
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 3 });
    expect(gemini.requests.at(-1)!.search).toContain("alt=sse");
  });

  test("tools: a functionCall answer arrives as tool_calls", async () => {
    gemini.enqueue({ kind: "function", name: "get_weather", args: { city: "Rome" } });
    const completion = await client.chat.completions.create({
      model: "gemini-flash",
      messages: [{ role: "user", content: "Weather in Rome?" }],
      tools: [weatherTool],
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Rome" });
    expect(gemini.requests.at(-1)!.body.tools[0].functionDeclarations[0].name).toBe("get_weather");
  });

  test("embeddings through the client's default base64 encoding", async () => {
    const result = await client.embeddings.create({ model: "gemini-embedding", input: ["first", "second"] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0]!.embedding).toHaveLength(8);
    expect(result.data[0]!.embedding).not.toEqual(result.data[1]!.embedding);
  });
});

describe("a Gemini channel whose key is rejected", () => {
  test("is disabled and the request fails over, although Gemini answers 400 rather than 401", async () => {
    const { seed } = stack;
    const broken = await seed.channel({ name: "gemini bad key", type: "gemini", baseUrl: gemini.url, apiKey: "wrong-gemini-key", models: ["gemini-failover"], priority: 10 });
    await seed.channel({ name: "claude backup", type: "anthropic", baseUrl: anthropic.url, apiKey: "sk-ant-test", models: ["gemini-failover"], priority: 0 });
    anthropic.enqueue({ kind: "text", text: "served by the backup" });
    const completion = await client.chat.completions.create({ model: "gemini-failover", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBe("served by the backup");
    const [row] = await waitFor(async () => {
      const rows = await stack.database.handle.db.select().from(channels).where(eq(channels.id, broken.id));
      return rows[0]?.status === "auto_disabled" ? rows : null;
    }, "the channel to be disabled");
    expect(row!.statusReason).toContain("400");
    expect(row!.statusReason).not.toContain("wrong-gemini-key");
  });
});
