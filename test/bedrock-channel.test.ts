import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { channels } from "@tollgate/db";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeBedrockUpstream, startFakeBedrockUpstream } from "./helpers/fake-bedrock-upstream";
import { sdkClients, seeder, type StackWith, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { readChatStream } from "./helpers/read-chat-stream";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const REGION = "eu-west-3";
const ACCESS_KEY = { accessKeyId: "AKIAFAKEBEDROCK00001", secretAccessKey: "fake/secret+key/0123456789abcdefghijklmn" };
const API_KEY = "ABSKZmFrZS1iZWRyb2NrLWFwaS1rZXk=";
const CLAUDE_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const LLAMA_ID = "meta.llama3-3-70b-instruct-v1:0";

let stack: StackWith<{ bedrock: FakeBedrockUpstream }>;
let bedrock: FakeBedrockUpstream;
let openai: OpenAI;
let anthropic: Anthropic;
let tokenId: number;
let seed: ReturnType<typeof seeder>;
let userId: number;

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: { name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

const lastLog = () => stack.lastLog(tokenId);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({ bedrock: await keep(startFakeBedrockUpstream({ region: REGION, credentials: ACCESS_KEY, apiKey: API_KEY })) }));
  ({ bedrock } = stack.fakes);
  ({ seed, userId } = stack);
  const baseURL = await stack.gateway.listen();
  await seed.channel({
    name: "bedrock",
    type: "bedrock",
    baseUrl: bedrock.url,
    apiKey: JSON.stringify(ACCESS_KEY),
    config: { region: REGION },
    models: ["claude-on-bedrock", "llama-on-bedrock"],
    modelMapping: { "claude-on-bedrock": CLAUDE_ID, "llama-on-bedrock": LLAMA_ID },
  });
  await seed.channel({ name: "bedrock api key", type: "bedrock", baseUrl: bedrock.url, apiKey: API_KEY, config: { region: REGION }, models: ["bearer-llama"], modelMapping: { "bearer-llama": LLAMA_ID } });
  await seed.price("claude-on-bedrock", 3, 15, 0.3, { cacheWrite: 3.75 });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  ({ openai, anthropic } = sdkClients(baseURL, token.secret));
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("the openai client against a Bedrock channel (Converse, SigV4)", () => {
  test("text: the request is signed for the channel's region, sent to Converse with system and inference settings, and answered", async () => {
    bedrock.enqueue({ kind: "text", text: "Bonjour from Llama", inputTokens: 21, outputTokens: 5 });
    const completion = await openai.chat.completions.create({
      model: "llama-on-bedrock",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Say hi in French" }],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
      stop: ["END"],
    });
    expect(completion.choices[0]!.message.content).toBe("Bonjour from Llama");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.model).toBe("llama-on-bedrock");
    const sent = bedrock.requests.at(-1)!;
    // The model id's colon is percent-encoded in the path, as AWS's SDKs send it (and signed so).
    expect(sent.path).toBe(`/model/${encodeURIComponent(LLAMA_ID)}/converse`);
    expect(sent.headers.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${ACCESS_KEY.accessKeyId}/`);
    expect(sent.headers.authorization).toContain(`/${REGION}/bedrock/aws4_request`);
    expect(JSON.stringify(sent.headers)).not.toContain(ACCESS_KEY.secretAccessKey);
    expect(sent.body).toEqual({
      messages: [{ role: "user", content: [{ text: "Say hi in French" }] }],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ["END"] },
    });
    expect(await lastLog()).toMatchObject({ promptTokens: 21, completionTokens: 5 });
  });

  test("stream: ConverseStream's event-stream frames arrive as chunks, with the usage", async () => {
    bedrock.enqueue({ kind: "text", text: "alpha beta gamma", inputTokens: 9, outputTokens: 3 });
    const stream = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "Greek letters" }], stream: true, stream_options: { include_usage: true } });
    const { text, finishReasons, usage } = await readChatStream(stream);
    expect(text).toBe("alpha beta gamma");
    expect(finishReasons).toEqual(["stop"]);
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 3 });
    expect(bedrock.requests.at(-1)!.action).toBe("converse-stream");
    expect(await lastLog()).toMatchObject({ promptTokens: 9, completionTokens: 3 });
  });

  test("tools: toolConfig carries the tools and choice; a toolUse answer arrives as tool_calls, whole and streamed", async () => {
    bedrock.enqueue({ kind: "tool", name: "get_weather", input: { city: "Rome" } });
    const completion = await openai.chat.completions.create({
      model: "llama-on-bedrock",
      messages: [{ role: "user", content: "Weather in Rome?" }],
      tools: [weatherTool],
      tool_choice: "required",
    });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Rome" });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(bedrock.requests.at(-1)!.body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: "get_weather", description: "Current weather", inputSchema: { json: weatherTool.function.parameters } } }],
      toolChoice: { any: {} },
    });

    bedrock.enqueue({ kind: "tool", name: "get_weather", input: { city: "Oslo" } });
    const stream = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "Weather in Oslo?" }], tools: [weatherTool], stream: true });
    let name = "";
    let argumentsText = "";
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.tool_calls?.[0];
      name += delta?.function?.name ?? "";
      argumentsText += delta?.function?.arguments ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe("get_weather");
    expect(JSON.parse(argumentsText)).toEqual({ city: "Oslo" });
    expect(finish).toBe("tool_calls");
  });

  test("a tool round trip goes back as toolUse and toolResult blocks", async () => {
    await openai.chat.completions.create({
      model: "llama-on-bedrock",
      messages: [
        { role: "user", content: "Weather in Rome?" },
        { role: "assistant", content: null, tool_calls: [{ id: "tooluse_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }] },
        { role: "tool", tool_call_id: "tooluse_1", content: "Sunny, 24C" },
      ],
      tools: [weatherTool],
    });
    expect(bedrock.requests.at(-1)!.body.messages).toEqual([
      { role: "user", content: [{ text: "Weather in Rome?" }] },
      { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Rome" } } }] },
      { role: "user", content: [{ toolResult: { toolUseId: "tooluse_1", content: [{ text: "Sunny, 24C" }] } }] },
    ]);
  });

  test("image input goes as an image block with its bytes; a web URL is refused with a 400 naming it", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await openai.chat.completions.create({
      model: "claude-on-bedrock",
      messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] }],
    });
    expect(bedrock.requests.at(-1)!.body.messages[0].content).toEqual([{ text: "What is this?" }, { image: { format: "png", source: { bytes: png } } }]);
    const before = bedrock.requests.length;
    const error = await openai.chat.completions
      .create({ model: "claude-on-bedrock", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error.param).toBe("messages[0].content[0].image_url.url");
    expect(bedrock.requests.length).toBe(before);
  });

  test("structured output: a json_schema goes as a forced tool and its input comes back as the JSON content", async () => {
    bedrock.enqueue({ kind: "tool", name: "json_response", input: { city: "Paris", population: 2102650 } });
    const completion = await openai.chat.completions.create({
      model: "llama-on-bedrock",
      messages: [{ role: "user", content: "The capital of France, as JSON" }],
      response_format: { type: "json_schema", json_schema: { name: "city", schema: { type: "object", properties: { city: { type: "string" }, population: { type: "integer" } } } } },
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ city: "Paris", population: 2102650 });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const toolConfig = bedrock.requests.at(-1)!.body.toolConfig;
    expect(toolConfig.toolChoice).toEqual({ tool: { name: "json_response" } });
    expect(toolConfig.tools[0].toolSpec.inputSchema.json.properties.city).toEqual({ type: "string" });
  });

  test("a parameter Converse cannot carry is refused with a 400 naming it, never dropped", async () => {
    const before = bedrock.requests.length;
    const error = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "hi" }], seed: 7 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: "seed", code: "unsupported_parameter" });
    expect(bedrock.requests.length).toBe(before);
  });

  test("usage with cache classes: reads billed at the cached price, writes at the cache-write price, both counted in the prompt", async () => {
    bedrock.enqueue({ kind: "text", text: "cached", inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 200 });
    const completion = await openai.chat.completions.create({ model: "claude-on-bedrock", messages: [{ role: "user", content: "hi" }] });
    expect(completion.usage).toMatchObject({ prompt_tokens: 1300, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 1000 } });
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 1300, completionTokens: 20, cachedTokens: 1000, cacheWriteTokens: 200, cacheWrite1hTokens: 0 });
    // Each class at its price: 100 x $3/1M + 200 (5-minute writes) x $3.75/1M + 1000 x $0.30/1M + 20 x $15/1M
    // = 300 + 750 + 300 + 300 micro-USD.
    expect(log.cost).toBe(1650);
  });
});

describe("the anthropic client against a Bedrock channel", () => {
  test("a Claude model gets the client's Messages body through InvokeModel, with Bedrock's anthropic_version and no model", async () => {
    bedrock.enqueue({ kind: "text", text: "Hello from Claude on Bedrock", inputTokens: 30, outputTokens: 7, cacheReadTokens: 500 });
    const message = await anthropic.messages.create(
      { model: "claude-on-bedrock", max_tokens: 64, system: "Be brief.", messages: [{ role: "user", content: "Hello" }] },
      { headers: { "anthropic-beta": "context-1m-2025-08-07" } },
    );
    expect(message.content as unknown).toEqual([{ type: "text", text: "Hello from Claude on Bedrock" }]);
    const sent = bedrock.requests.at(-1)!;
    expect(sent.path).toBe(`/model/${encodeURIComponent(CLAUDE_ID)}/invoke`);
    expect(sent.body).toEqual({
      max_tokens: 64,
      system: "Be brief.",
      messages: [{ role: "user", content: "Hello" }],
      anthropic_version: "bedrock-2023-05-31",
      anthropic_beta: ["context-1m-2025-08-07"],
    });
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 530, completionTokens: 7, cachedTokens: 500 });
    // 30 x $3/1M + 500 x $0.30/1M + 7 x $15/1M = 90 + 150 + 105
    expect(log.cost).toBe(345);
  });

  test("streamed: InvokeModelWithResponseStream's base64 chunks are relayed as Anthropic's events", async () => {
    bedrock.enqueue({ kind: "text", text: "one two three", inputTokens: 11, outputTokens: 4 });
    const stream = anthropic.messages.stream({ model: "claude-on-bedrock", max_tokens: 64, messages: [{ role: "user", content: "Count" }] });
    const events: string[] = [];
    stream.on("streamEvent", (event) => events.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content as unknown).toEqual([{ type: "text", text: "one two three" }]);
    expect(final.stop_reason).toBe("end_turn");
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(bedrock.requests.at(-1)!.action).toBe("invoke-with-response-stream");
    expect("stream" in bedrock.requests.at(-1)!.body).toBe(false);
    expect(await lastLog()).toMatchObject({ promptTokens: 11, completionTokens: 4 });
  });

  test("a model of another family is translated through Converse", async () => {
    bedrock.enqueue({ kind: "text", text: "Llama via Converse" });
    const message = await anthropic.messages.create({ model: "llama-on-bedrock", max_tokens: 32, messages: [{ role: "user", content: "Hi" }] });
    expect(message.content as unknown).toEqual([{ type: "text", text: "Llama via Converse" }]);
    expect(bedrock.requests.at(-1)!.action).toBe("converse");
  });
});

describe("Bedrock's errors and credentials", () => {
  test("ThrottlingException is a 429 the client sees as a rate limit; ValidationException a 400 with Bedrock's message", async () => {
    bedrock.enqueue({ kind: "error", status: 429, errorType: "ThrottlingException", message: "Too many requests, please wait before trying again." });
    const throttled = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "hi" }] }).catch((caught) => caught);
    expect(throttled).toBeInstanceOf(OpenAI.RateLimitError);
    bedrock.enqueue({ kind: "error", status: 400, errorType: "ValidationException", message: "The provided model identifier is invalid." });
    const invalid = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "hi" }] }).catch((caught) => caught);
    expect(invalid).toBeInstanceOf(OpenAI.BadRequestError);
    expect(invalid.message).toContain("The provided model identifier is invalid.");
  });

  test("an exception inside a stream ends the client's stream with an error", async () => {
    bedrock.enqueue({ kind: "stream-exception", exceptionType: "modelStreamErrorException", message: "The model stopped unexpectedly" });
    const stream = await openai.chat.completions.create({ model: "llama-on-bedrock", messages: [{ role: "user", content: "hi" }], stream: true });
    const failure = await (async () => {
      for await (const _chunk of stream) {
        // Read until the error.
      }
    })().catch((caught) => caught);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure.message)).toContain("modelStreamErrorException");
  });

  test("a Bedrock API key is sent as a bearer token, unsigned", async () => {
    bedrock.enqueue({ kind: "text", text: "bearer ok" });
    const completion = await openai.chat.completions.create({ model: "bearer-llama", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBe("bearer ok");
    const sent = bedrock.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers["x-amz-date"]).toBeUndefined();
  });

  test("a signature with the wrong secret is refused by Bedrock's 403: the channel is disabled, without its secret in the reason, and the request fails over", async () => {
    const wrongSecret = JSON.stringify({ accessKeyId: ACCESS_KEY.accessKeyId, secretAccessKey: "wrong-secret-value-0000" });
    const broken = await seed.channel({ name: "bedrock wrong secret", type: "bedrock", baseUrl: bedrock.url, apiKey: wrongSecret, config: { region: REGION }, models: ["bedrock-failover"], priority: 10, modelMapping: { "bedrock-failover": LLAMA_ID } });
    const unreadable = await seed.channel({ name: "bedrock unreadable key", type: "bedrock", baseUrl: bedrock.url, apiKey: "{not json", config: { region: REGION }, models: ["bedrock-failover"], priority: 5, modelMapping: { "bedrock-failover": LLAMA_ID } });
    await seed.channel({ name: "bedrock good", type: "bedrock", baseUrl: bedrock.url, apiKey: JSON.stringify(ACCESS_KEY), config: { region: REGION }, models: ["bedrock-failover"], priority: 0, modelMapping: { "bedrock-failover": LLAMA_ID } });
    bedrock.enqueue({ kind: "text", text: "served by the good channel" });
    const completion = await openai.chat.completions.create({ model: "bedrock-failover", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]!.message.content).toBe("served by the good channel");
    for (const [id, secret] of [[broken.id, "wrong-secret-value-0000"], [unreadable.id, "{not json"]] as const) {
      const [row] = await waitFor(async () => {
        const rows = await stack.database.handle.db.select().from(channels).where(eq(channels.id, id));
        return rows[0]?.status === "auto_disabled" ? rows : null;
      }, "the channel to be disabled");
      expect(row!.statusReason).not.toContain(secret);
    }
  });
});
