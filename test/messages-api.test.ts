import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ anthropicUpstream: FakeAnthropicUpstream; openaiUpstream: FakeOpenAIUpstream }>;
let anthropicUpstream: FakeAnthropicUpstream;
let openaiUpstream: FakeOpenAIUpstream;
let gatewayUrl: string;
let client: Anthropic;
let tokenId: number;
let restrictedKey: string;

const lastLog = () => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    anthropicUpstream: await keep(startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" })),
    openaiUpstream: await keep(startFakeOpenAIUpstream()),
  }));
  ({ anthropicUpstream, openaiUpstream } = stack.fakes);
  const { seed, userId } = stack;
  gatewayUrl = (await stack.gateway.listen()).replace(/\/v1$/, "");
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, apiKey: "sk-ant-upstream", models: ["claude-sonnet-4-5"] });
  await seed.channel({ name: "openai", baseUrl: openaiUpstream.url, models: ["gpt-4o-mini"] });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  restrictedKey = (await seed.token({ userId, allowedModels: ["gpt-4o-mini"] })).secret;
  // The SDK's base URL is the host: it appends /v1/messages itself.
  client = new Anthropic({ apiKey: token.secret, baseURL: gatewayUrl, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("@anthropic-ai/sdk against /v1/messages on an Anthropic channel (native)", () => {
  test("a message is passed through and accounted, with the channel's key swapped in", async () => {
    anthropicUpstream.enqueue({ kind: "text", text: "Native hello", inputTokens: 40, outputTokens: 6, cacheReadTokens: 10 });
    const message = await client.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Native hello" });
    const sent = anthropicUpstream.requests.at(-1)!;
    expect(sent.headers["x-api-key"]).toBe("sk-ant-upstream");
    expect(sent.body.max_tokens).toBe(256);
    expect(await lastLog()).toMatchObject({ endpoint: "messages", promptTokens: 50, completionTokens: 6, cachedTokens: 10, status: 200 });
  });

  test("a stream arrives as Anthropic events and the final message assembles", async () => {
    anthropicUpstream.enqueue({ kind: "text", text: "streamed natively here", outputTokens: 4 });
    const stream = client.messages.stream({ model: "claude-sonnet-4-5", max_tokens: 100, messages: [{ role: "user", content: "Go" }] });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe("streamed natively here");
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBe(4);
    expect((await lastLog()).stream).toBe(true);
  });
});

describe("@anthropic-ai/sdk against /v1/messages on an OpenAI-compatible channel (translated)", () => {
  test("a message is translated both ways", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "Translated hello", promptTokens: 21, completionTokens: 3 });
    const message = await client.messages.create({
      model: "gpt-4o-mini",
      max_tokens: 64,
      system: "You are terse.",
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(message.type).toBe("message");
    expect(message.content[0]).toMatchObject({ type: "text", text: "Translated hello" });
    expect(message.usage).toMatchObject({ input_tokens: 21, output_tokens: 3 });
    const sent = openaiUpstream.requests.at(-1)!.body;
    expect(sent.messages[0]).toEqual({ role: "system", content: "You are terse." });
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(64);
  });

  test("a stream is translated into Anthropic's event sequence", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "one two three", promptTokens: 8, completionTokens: 3 });
    const stream = client.messages.stream({ model: "gpt-4o-mini", max_tokens: 64, messages: [{ role: "user", content: "Count" }] });
    let text = "";
    stream.on("text", (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe("one two three");
    expect(final.usage.output_tokens).toBe(3);
    expect(await lastLog()).toMatchObject({ stream: true, completionTokens: 3, status: 200 });
  });

  test("tool use is translated both ways", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "It is sunny." });
    await client.messages.create({
      model: "gpt-4o-mini",
      max_tokens: 64,
      tools: [{ name: "get_weather", description: "weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }],
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "sunny" }] },
      ],
    });
    const sent = openaiUpstream.requests.at(-1)!.body;
    expect(sent.tools[0].function.name).toBe("get_weather");
    expect(sent.messages[1].tool_calls[0]).toMatchObject({ id: "toolu_1", function: { name: "get_weather" } });
    expect(sent.messages[2]).toMatchObject({ role: "tool", tool_call_id: "toolu_1" });
  });
});

describe("errors on /v1/messages use Anthropic's shape", () => {
  test("a bad key is an AuthenticationError, x-api-key works as well as Bearer", async () => {
    const wrong = new Anthropic({ apiKey: "sk-wrong", baseURL: gatewayUrl, maxRetries: 0 });
    const error = await wrong.messages.create({ model: "gpt-4o-mini", max_tokens: 5, messages: [{ role: "user", content: "x" }] }).catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.error).toMatchObject({ type: "error", error: { type: "authentication_error" } });
  });

  test("a model the token may not use is a PermissionDeniedError; a missing max_tokens is a BadRequestError", async () => {
    const restricted = new Anthropic({ apiKey: restrictedKey, baseURL: gatewayUrl, maxRetries: 0 });
    const forbidden = await restricted.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 5, messages: [{ role: "user", content: "x" }] })
      .catch((caught) => caught);
    expect(forbidden).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const response = await fetch(`${gatewayUrl}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": restrictedKey, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
  });
});
