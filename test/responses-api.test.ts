import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./helpers/fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ chatOnly: FakeOpenAIUpstream; responsesUpstream: FakeOpenAIResponsesUpstream; anthropicUpstream: FakeAnthropicUpstream; geminiUpstream: FakeGeminiUpstream }>;
let chatOnly: FakeOpenAIUpstream;
let responsesUpstream: FakeOpenAIResponsesUpstream;
let anthropicUpstream: FakeAnthropicUpstream;
let geminiUpstream: FakeGeminiUpstream;
let baseURL: string;
let tokenId: number;
let client: OpenAI;

/** Models: a chat-only vendor, a chat-only server with tool calls, a native Responses channel, Claude, Gemini. */
const CHAT_ONLY = "deepseek-chat";
const CHAT_TOOLS = "qwen-local";
const NATIVE = "gpt-4o";
const CLAUDE = "claude-sonnet-4-5";
const GEMINI = "gemini-flash";
const AZURE = "gpt-4.1-azure";

const lastLog = () => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    chatOnly: await keep(startFakeOpenAIUpstream()),
    responsesUpstream: await keep(startFakeOpenAIResponsesUpstream({ requireApiKey: "sk-native" })),
    anthropicUpstream: await keep(startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" })),
    geminiUpstream: await keep(startFakeGeminiUpstream({ requireApiKey: "gemini-key" })),
  }));
  ({ chatOnly, responsesUpstream, anthropicUpstream, geminiUpstream } = stack.fakes);
  const { seed, userId } = stack;
  baseURL = await stack.gateway.listen();
  await seed.channel({ name: "deepseek", baseUrl: chatOnly.url, models: [CHAT_ONLY], config: { preset: "deepseek" } });
  await seed.channel({ name: "local", baseUrl: responsesUpstream.url, apiKey: "sk-native", models: [CHAT_TOOLS] });
  await seed.channel({
    name: "openai",
    baseUrl: responsesUpstream.url,
    apiKey: "sk-native",
    models: [NATIVE],
    // Web search runs on the operator's account: allowed here, at no charge (test/built-in-tools.test.ts bills it).
    config: { preset: "openai", builtInTools: { web_search: { pricePerCall: 0 } } },
  });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, apiKey: "sk-ant-upstream", models: [CLAUDE] });
  await seed.channel({
    name: "gemini",
    type: "gemini",
    baseUrl: geminiUpstream.url,
    apiKey: "gemini-key",
    models: [GEMINI],
    modelMapping: { [GEMINI]: "gemini-2.5-flash" },
  });
  await seed.channel({
    name: "azure",
    type: "azure-openai",
    baseUrl: responsesUpstream.url.replace(/\/v1$/, ""),
    apiKey: "sk-native",
    models: [AZURE],
    modelMapping: { [AZURE]: "my-gpt-41-deployment" },
    config: { apiVersion: "v1" },
  });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  client = new OpenAI({ apiKey: token.secret, baseURL, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

/** Every event of a streamed response, in order, through the official client. */
async function streamEvents(params: Record<string, unknown>) {
  const stream = await client.responses.create({ ...params, stream: true } as never);
  const events: Array<Record<string, any>> = [];
  for await (const event of stream as unknown as AsyncIterable<Record<string, any>>) events.push(event);
  return events;
}

function expectNumberedFromZero(events: Array<Record<string, any>>) {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
}

describe("the official openai client's responses.create on a chat-only channel (translated)", () => {
  test("a text answer comes back as a Response, from a chat request, and is logged as 'responses' with the upstream's usage", async () => {
    chatOnly.enqueue({ kind: "ok", content: "Paris is the capital.", promptTokens: 17, completionTokens: 4, cachedTokens: 3 });
    const response = await client.responses.create({ model: CHAT_ONLY, instructions: "Be brief.", input: "Capital of France?", max_output_tokens: 50 });
    expect(response.object).toBe("response");
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Paris is the capital.");
    expect(response.usage).toMatchObject({ input_tokens: 17, output_tokens: 4, total_tokens: 21, input_tokens_details: { cached_tokens: 3 } });
    const sent = chatOnly.requests.at(-1)!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Capital of France?" },
    ]);
    expect(sent.body.max_tokens).toBe(50);
    expect(await lastLog()).toMatchObject({ endpoint: "responses", model: CHAT_ONLY, promptTokens: 17, completionTokens: 4, cachedTokens: 3, status: 200, stream: false });
  });

  test("a stream is the documented event sequence, numbered from 0, ending in response.completed with usage", async () => {
    chatOnly.enqueue({ kind: "ok", content: "one two three", promptTokens: 9, completionTokens: 3 });
    const events = await streamEvents({ model: CHAT_ONLY, input: [{ role: "user", content: [{ type: "input_text", text: "Count" }] }] });
    expectNumberedFromZero(events);
    const types = events.map((event) => event.type).filter((type) => type !== "response.output_text.delta");
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events.slice(4, -4).every((event) => event.type === "response.output_text.delta")).toBe(true);
    const text = events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("");
    expect(text).toBe("one two three");
    const completed = events.at(-1)!;
    expect(completed.response.output[0].content[0].text).toBe("one two three");
    expect(completed.response.usage).toMatchObject({ input_tokens: 9, output_tokens: 3, total_tokens: 12 });
    expect(await lastLog()).toMatchObject({ endpoint: "responses", stream: true, promptTokens: 9, completionTokens: 3, status: 200 });
  });

  test("the client's stream helper assembles the final response", async () => {
    chatOnly.enqueue({ kind: "ok", content: "assembled by the helper", promptTokens: 5, completionTokens: 4 });
    const stream = client.responses.stream({ model: CHAT_ONLY, input: "Go" });
    let deltas = "";
    stream.on("response.output_text.delta", (event) => (deltas += event.delta));
    const final = await stream.finalResponse();
    expect(deltas).toBe("assembled by the helper");
    expect(final.output_text).toBe("assembled by the helper");
  });
});

const weatherTool = {
  type: "function" as const,
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

describe("function tools through responses.create", () => {
  test("on a chat-only channel: a function_call, then a follow-up with its output and previous_response_id", async () => {
    responsesUpstream.enqueue({ kind: "function_call", name: "get_weather", arguments: '{"city":"Paris"}', callId: "call_paris" });
    const first = await client.responses.create({ model: CHAT_TOOLS, input: "Weather in Paris?", tools: [weatherTool], tool_choice: "auto" });
    const call = first.output.find((item) => item.type === "function_call")!;
    expect(call).toMatchObject({ type: "function_call", call_id: "call_paris", name: "get_weather", arguments: '{"city":"Paris"}', status: "completed" });
    const sentFirst = responsesUpstream.requests.at(-1)!;
    expect(sentFirst.path).toBe("/v1/chat/completions");
    expect(sentFirst.body.tools).toEqual([{ type: "function", function: { name: "get_weather", description: "The weather in a city", parameters: weatherTool.parameters, strict: true } }]);

    responsesUpstream.enqueue({ kind: "text", text: "It is sunny in Paris.", inputTokens: 40, outputTokens: 6 });
    const second = await client.responses.create({
      model: CHAT_TOOLS,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_paris", output: "sunny, 21 C" }],
      tools: [weatherTool],
    });
    expect(second.output_text).toBe("It is sunny in Paris.");
    expect(second.previous_response_id).toBe(first.id);
    const sent = responsesUpstream.requests.at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_paris", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool", tool_call_id: "call_paris", content: "sunny, 21 C" },
    ]);
    expect(await lastLog()).toMatchObject({ endpoint: "responses", promptTokens: 40, completionTokens: 6 });
  });

  test("on a chat-only channel, streamed: the call arrives as function_call_arguments events", async () => {
    responsesUpstream.enqueue({ kind: "function_call", name: "get_weather", arguments: '{"city":"Oslo"}', callId: "call_oslo" });
    const events = await streamEvents({ model: CHAT_TOOLS, input: "Weather in Oslo?", tools: [weatherTool] });
    expectNumberedFromZero(events);
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[2]!.item).toMatchObject({ type: "function_call", call_id: "call_oslo", name: "get_weather", arguments: "", status: "in_progress" });
    expect(events[4]).toMatchObject({ arguments: '{"city":"Oslo"}', item_id: events[2]!.item.id });
    expect(events.at(-1)!.response.output[0]).toMatchObject({ type: "function_call", arguments: '{"city":"Oslo"}', status: "completed" });
  });

  test("on an Anthropic channel: a tool_use comes back as a function_call, and its output goes back as a tool_result", async () => {
    anthropicUpstream.enqueue({ kind: "tool", name: "get_weather", input: { city: "Rome" } });
    const first = await client.responses.create({ model: CLAUDE, input: "Weather in Rome?", tools: [weatherTool] });
    const call = first.output.find((item) => item.type === "function_call");
    expect(call).toMatchObject({ type: "function_call", name: "get_weather" });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual({ city: "Rome" });
    anthropicUpstream.enqueue({ kind: "text", text: "Warm in Rome." });
    const second = await client.responses.create({
      model: CLAUDE,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "warm" }],
    });
    expect(second.output_text).toBe("Warm in Rome.");
    const sent = anthropicUpstream.requests.at(-1)!.body;
    expect(sent.messages.at(-1).content[0]).toMatchObject({ type: "tool_result", tool_use_id: (call as { call_id: string }).call_id });
  });
});

describe("a channel that speaks the Responses API (native relay)", () => {
  test("the request is relayed as sent (model and all fields) and the answer as it came, with exact usage", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "Native answer.", inputTokens: 30, outputTokens: 3, cachedTokens: 10, reasoningTokens: 1 });
    const response = await client.responses.create({
      model: NATIVE,
      input: "Hi",
      tools: [{ type: "web_search_preview" }],
      include: ["reasoning.encrypted_content"],
      metadata: { ticket: "42" },
    } as never);
    expect((response as unknown as OpenAI.Responses.Response).output_text).toBe("Native answer.");
    const sent = responsesUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.headers.authorization).toBe("Bearer sk-native");
    expect(sent.body).toEqual({ model: NATIVE, input: "Hi", tools: [{ type: "web_search_preview" }], include: ["reasoning.encrypted_content"], metadata: { ticket: "42" } });
    expect(await lastLog()).toMatchObject({ endpoint: "responses", promptTokens: 30, completionTokens: 3, cachedTokens: 10, status: 200 });
  });

  test("an Azure OpenAI channel on the v1 API is relayed to /openai/v1/responses with its deployment and api-key", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "From Azure.", inputTokens: 6, outputTokens: 2 });
    const response = await client.responses.create({ model: AZURE, input: "Hi" });
    expect(response.output_text).toBe("From Azure.");
    const sent = responsesUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/openai/v1/responses");
    expect(sent.headers["api-key"]).toBe("sk-native");
    expect(sent.body).toEqual({ model: "my-gpt-41-deployment", input: "Hi" });
    expect(await lastLog()).toMatchObject({ endpoint: "responses", upstreamModel: "my-gpt-41-deployment", promptTokens: 6, completionTokens: 2 });
  });

  test("a stream is relayed event by event, and billed from response.completed", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "streamed natively", inputTokens: 8, outputTokens: 2 });
    const events = await streamEvents({ model: NATIVE, input: "Stream" });
    expectNumberedFromZero(events);
    expect(events.at(-1)!.type).toBe("response.completed");
    expect(events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("")).toBe("streamed natively");
    expect(responsesUpstream.requests.at(-1)!.body.stream).toBe(true);
    expect(await lastLog()).toMatchObject({ endpoint: "responses", stream: true, promptTokens: 8, completionTokens: 2, status: 200 });
  });

  test("a stream of data-only events (no event: lines) is relayed as it came and still billed from its final event", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "no names here", inputTokens: 4, outputTokens: 3, unnamedEvents: true });
    const response = await fetch(`${baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${client.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: NATIVE, input: "Hi", stream: true }),
    });
    const text = await response.text();
    expect(text).not.toContain("event:");
    expect(text).toContain('"type":"response.completed"');
    expect(await lastLog()).toMatchObject({ endpoint: "responses", stream: true, promptTokens: 4, completionTokens: 3, usageEstimated: false });
  });

  test("a follow-up goes to the channel that created the response, with previous_response_id passed through", async () => {
    const first = await client.responses.create({ model: NATIVE, input: "Remember 7." });
    const second = await client.responses.create({ model: NATIVE, previous_response_id: first.id, input: "What number?" });
    expect(second.previous_response_id).toBe(first.id);
    const sent = responsesUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1/responses");
    expect(sent.body).toMatchObject({ previous_response_id: first.id, input: "What number?" });
  });

  test("a follow-up of a native response on a translated channel replays the conversation instead", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "Noted: 7." });
    const first = await client.responses.create({ model: NATIVE, input: "Remember 7." });
    chatOnly.enqueue({ kind: "ok", content: "7" });
    await client.responses.create({ model: CHAT_ONLY, previous_response_id: first.id, input: "What number?" });
    expect(chatOnly.requests.at(-1)!.body.messages).toEqual([
      { role: "user", content: "Remember 7." },
      { role: "assistant", content: "Noted: 7." },
      { role: "user", content: "What number?" },
    ]);
  });

  test("a follow-up of a translated response on a native channel replays the conversation as input items", async () => {
    chatOnly.enqueue({ kind: "ok", content: "Noted: 9." });
    const first = await client.responses.create({ model: CHAT_ONLY, input: "Remember 9." });
    await client.responses.create({ model: NATIVE, previous_response_id: first.id, input: "What number?" });
    const sent = responsesUpstream.requests.at(-1)!.body;
    expect(sent.previous_response_id).toBeUndefined();
    expect(sent.input).toEqual([
      { type: "message", role: "user", content: "Remember 9." },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Noted: 9.", annotations: [], logprobs: [] }] },
      { type: "message", role: "user", content: "What number?" },
    ]);
  });

  test("an upstream's own 400 is relayed in the envelope, with its message and param", async () => {
    responsesUpstream.enqueue({ kind: "error", status: 400, message: "Invalid value for 'reasoning.effort'.", code: "invalid_value" });
    const refused = await client.responses.create({ model: NATIVE, input: "Hi", reasoning: { effort: "extreme" as never } }).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ message: "Invalid value for 'reasoning.effort'.", code: "invalid_value" });
    expect(await lastLog()).toMatchObject({ endpoint: "responses", status: 400 });
  });

  test("a natively relayed response is stored too, and GET returns it as the upstream gave it", async () => {
    responsesUpstream.enqueue({ kind: "text", text: "Keep this.", inputTokens: 5, outputTokens: 2 });
    const created = await client.responses.create({ model: NATIVE, input: "Store natively" });
    const fetched = await client.responses.retrieve(created.id);
    expect(fetched).toEqual(created);
  });

  test("what chat cannot carry is refused with 400 unsupported_parameter on a translated channel, not dropped", async () => {
    const tools = [{ type: "computer_use_preview", display_width: 1024, display_height: 768, environment: "browser" }];
    const refused = await client.responses.create({ model: CHAT_ONLY, input: "Hi", tools } as never).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.error).toMatchObject({ code: "unsupported_parameter", param: "tools[0]", type: "invalid_request_error" });
  });
});

describe("responses.create on Anthropic and Gemini channels (translated)", () => {
  test("Anthropic: a text answer and a stream", async () => {
    anthropicUpstream.enqueue({ kind: "text", text: "Claude here.", inputTokens: 20, outputTokens: 3, cacheReadTokens: 5 });
    const response = await client.responses.create({ model: CLAUDE, instructions: "Be kind.", input: "Hello", max_output_tokens: 100 });
    expect(response.output_text).toBe("Claude here.");
    const sent = anthropicUpstream.requests.at(-1)!.body;
    expect(sent.max_tokens).toBe(100);
    expect(JSON.stringify(sent.system)).toContain("Be kind.");
    expect(await lastLog()).toMatchObject({ endpoint: "responses", promptTokens: 25, completionTokens: 3, cachedTokens: 5 });

    anthropicUpstream.enqueue({ kind: "text", text: "Claude streams too.", outputTokens: 4 });
    const events = await streamEvents({ model: CLAUDE, input: "Stream" });
    expectNumberedFromZero(events);
    expect(events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("")).toBe("Claude streams too.");
    expect(events.at(-1)).toMatchObject({ type: "response.completed", response: { status: "completed", usage: { output_tokens: 4 } } });
  });

  test("Gemini: a text answer, a stream and a function call", async () => {
    geminiUpstream.enqueue({ kind: "text", text: "Gemini here.", promptTokens: 11, candidatesTokens: 3 });
    const response = await client.responses.create({ model: GEMINI, input: "Hello" });
    expect(response.output_text).toBe("Gemini here.");
    expect(response.model).toBe(GEMINI);
    expect(await lastLog()).toMatchObject({ endpoint: "responses", upstreamModel: "gemini-2.5-flash", promptTokens: 11, completionTokens: 3 });

    geminiUpstream.enqueue({ kind: "text", text: "Gemini streams.", promptTokens: 6, candidatesTokens: 2 });
    const events = await streamEvents({ model: GEMINI, input: "Stream" });
    expect(events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join("")).toBe("Gemini streams.");
    expect(events.at(-1)!.response.usage).toMatchObject({ input_tokens: 6, output_tokens: 2 });

    geminiUpstream.enqueue({ kind: "function", name: "get_weather", args: { city: "Lima" } });
    const called = await client.responses.create({ model: GEMINI, input: "Weather in Lima?", tools: [weatherTool] });
    const call = called.output.find((item) => item.type === "function_call") as { name: string; arguments: string };
    expect(call.name).toBe("get_weather");
    expect(JSON.parse(call.arguments)).toEqual({ city: "Lima" });
  });
});
