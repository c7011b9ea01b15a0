import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError, GoogleGenAI, Type } from "@google/genai";
import { countTextTokens } from "../apps/gateway/src/accounting/count-tokens";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { seeder, type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let stack: StackWith<{ geminiUpstream: FakeGeminiUpstream; anthropicUpstream: FakeAnthropicUpstream; openaiUpstream: FakeOpenAIUpstream }>;
let geminiUpstream: FakeGeminiUpstream;
let anthropicUpstream: FakeAnthropicUpstream;
let openaiUpstream: FakeOpenAIUpstream;
let gatewayUrl: string;
let seed: ReturnType<typeof seeder>;
let userId: number;
let tokenId: number;
let secret: string;

/** @google/genai pointed at the gateway, as a user configures it: the key, and httpOptions.baseUrl (v1 unless told v1beta). */
function client(apiVersion?: "v1" | "v1beta", key = secret): GoogleGenAI {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gatewayUrl, ...(apiVersion ? { apiVersion } : {}) } });
}

const logsOf = (id: number) => stack.logsOf(id);
const lastLog = () => stack.lastLog(tokenId);

async function apiErrorOf(call: Promise<unknown>): Promise<{ status: number; body: any }> {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return { status: (error as ApiError).status, body: JSON.parse((error as ApiError).message) };
}

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    geminiUpstream: await keep(startFakeGeminiUpstream({ requireApiKey: "gemini-upstream-key" })),
    anthropicUpstream: await keep(startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" })),
    openaiUpstream: await keep(startFakeOpenAIUpstream()),
  }));
  ({ geminiUpstream, anthropicUpstream, openaiUpstream } = stack.fakes);
  ({ seed, userId } = stack);
  gatewayUrl = (await stack.gateway.listen()).replace(/\/v1$/, "");
  await seed.channel({
    name: "gemini",
    type: "gemini",
    baseUrl: geminiUpstream.url,
    apiKey: "gemini-upstream-key",
    models: ["gemini-flash", "gemini-embedding"],
    modelMapping: { "gemini-flash": "gemini-2.5-flash", "gemini-embedding": "gemini-embedding-001" },
  });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, apiKey: "sk-ant-upstream", models: ["claude-sonnet-4-5"] });
  await seed.channel({ name: "openai", baseUrl: openaiUpstream.url, models: ["gpt-4o-mini", "text-embedding-3-small"] });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  secret = token.secret;
  // The counting worker loads its vocabulary on its first count: done here, not inside the first test that counts.
  await countTextTokens("warm up");
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("@google/genai against a Gemini channel (native)", () => {
  test("generateContent on v1 (the client's default) is relayed with the upstream model and key, and billed from usageMetadata", async () => {
    geminiUpstream.enqueue({ kind: "text", text: "Native hello", promptTokens: 30, candidatesTokens: 5, cachedTokens: 10 });
    const response = await client().models.generateContent({
      model: "gemini-flash",
      contents: "Hello",
      config: { systemInstruction: "Be brief", temperature: 0.2, safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT" as any, threshold: "BLOCK_NONE" as any }] },
    });
    expect(response.text).toBe("Native hello");
    expect(response.usageMetadata?.promptTokenCount).toBe(30);
    const sent = geminiUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(sent.headers["x-goog-api-key"]).toBe("gemini-upstream-key");
    expect(sent.body.systemInstruction.parts[0].text).toBe("Be brief");
    expect(sent.body.safetySettings).toHaveLength(1);
    expect(sent.body.generationConfig.temperature).toBe(0.2);
    const log = await lastLog();
    expect(log).toMatchObject({ endpoint: "gemini.generateContent", model: "gemini-flash", upstreamModel: "gemini-2.5-flash", status: 200 });
    expect(log).toMatchObject({ promptTokens: 30, completionTokens: 5, cachedTokens: 10, usageEstimated: false });
  });

  test("generateContentStream on v1beta relays Google's events as they came, billed from the last usageMetadata", async () => {
    geminiUpstream.enqueue({ kind: "text", text: "one two three", promptTokens: 12, candidatesTokens: 3 });
    const chunks: string[] = [];
    for await (const chunk of await client("v1beta").models.generateContentStream({ model: "gemini-flash", contents: "Count" })) chunks.push(chunk.text ?? "");
    expect(chunks.join("")).toBe("one two three");
    expect(chunks.length).toBe(3);
    expect(geminiUpstream.requests.at(-1)!.search).toBe("?alt=sse");
    const log = await lastLog();
    expect(log).toMatchObject({ endpoint: "gemini.streamGenerateContent", stream: true, status: 200, promptTokens: 12, completionTokens: 3 });
  });

  test("a function call comes back as Gemini's own functionCall part", async () => {
    geminiUpstream.enqueue({ kind: "function", name: "get_weather", args: { city: "Paris" } });
    const response = await client().models.generateContent({
      model: "gemini-flash",
      contents: "Weather in Paris?",
      config: { tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } }] }] },
    });
    expect(response.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    expect(geminiUpstream.requests.at(-1)!.body.tools[0].functionDeclarations[0].name).toBe("get_weather");
  });

  test("Google's built-in tools reach a Gemini channel as they are", async () => {
    const response = await client().models.generateContent({ model: "gemini-flash", contents: "News?", config: { tools: [{ googleSearch: {} }] } });
    expect(response.text).toBeString();
    expect(geminiUpstream.requests.at(-1)!.body.tools).toEqual([{ googleSearch: {} }]);
  });

  test("embedContent (sent as batchEmbedContents by the client) names the upstream model in each request", async () => {
    const response = await client().models.embedContent({ model: "gemini-embedding", contents: ["alpha", "beta"], config: { outputDimensionality: 8 } });
    expect(response.embeddings).toHaveLength(2);
    expect(response.embeddings![0]!.values).toHaveLength(8);
    const sent = geminiUpstream.requests.at(-1)!;
    expect(sent.path).toBe("/v1beta/models/gemini-embedding-001:batchEmbedContents");
    expect(sent.body.requests.map((request: any) => request.model)).toEqual(["models/gemini-embedding-001", "models/gemini-embedding-001"]);
    const log = await lastLog();
    expect(log).toMatchObject({ endpoint: "gemini.batchEmbedContents", status: 200, usageEstimated: true });
    expect(log.promptTokens).toBeGreaterThan(0);
  });

  test("countTokens is answered by the channel, not billed", async () => {
    const response = await client("v1beta").models.countTokens({ model: "gemini-flash", contents: "three little words" });
    expect(response.totalTokens).toBe(3);
    expect(geminiUpstream.requests.at(-1)!.path).toBe("/v1beta/models/gemini-2.5-flash:countTokens");
    expect(await lastLog()).toMatchObject({ endpoint: "gemini.countTokens", status: 200, cost: 0 });
  });

  test("an upstream error is relayed in Google's shape", async () => {
    geminiUpstream.enqueue({ kind: "error", status: 400, message: "Invalid value at 'contents'" });
    const { status, body } = await apiErrorOf(client().models.generateContent({ model: "gemini-flash", contents: "Hi" }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
  });
});

describe("@google/genai against an OpenAI-compatible channel (translated)", () => {
  test("generateContent becomes a chat completion and its answer a GenerateContentResponse", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "Hi from OpenAI", promptTokens: 21, completionTokens: 4 });
    const response = await client().models.generateContent({
      model: "gpt-4o-mini",
      contents: [{ role: "user", parts: [{ text: "Hello" }] }],
      config: { systemInstruction: "Be brief", maxOutputTokens: 64, stopSequences: ["END"], topP: 0.5 },
    });
    expect(response.text).toBe("Hi from OpenAI");
    expect(response.candidates?.[0]?.finishReason).toBe("STOP" as any);
    expect(response.usageMetadata).toMatchObject({ promptTokenCount: 21, candidatesTokenCount: 4, totalTokenCount: 25 });
    const sent = openaiUpstream.requests.at(-1)!.body as any;
    expect(sent.messages).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: "Hello" },
    ]);
    expect(sent).toMatchObject({ model: "gpt-4o-mini", max_tokens: 64, stop: ["END"], top_p: 0.5 });
    expect(await lastLog()).toMatchObject({ endpoint: "gemini.generateContent", promptTokens: 21, completionTokens: 4, status: 200 });
  });

  test("a stream arrives as Gemini events, the last with finishReason and usageMetadata", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "streamed words here", promptTokens: 9, completionTokens: 3 });
    const chunks = [];
    for await (const chunk of await client("v1beta").models.generateContentStream({ model: "gpt-4o-mini", contents: "Go" })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text ?? "").join("")).toBe("streamed words here");
    expect(chunks.at(-1)!.candidates?.[0]?.finishReason).toBe("STOP" as any);
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 3 });
    expect((openaiUpstream.requests.at(-1)!.body as any).stream).toBe(true);
    expect(await lastLog()).toMatchObject({ endpoint: "gemini.streamGenerateContent", stream: true, promptTokens: 9, completionTokens: 3 });
  });

  test("a function call and its answer in the history become tool_calls and a tool message paired by id", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: "It is sunny." });
    const response = await client().models.generateContent({
      model: "gpt-4o-mini",
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { forecast: "sunny" } } }] },
      ],
      config: {
        tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING, nullable: true } }, required: ["city"] } }] }],
        toolConfig: { functionCallingConfig: { mode: "ANY" as any, allowedFunctionNames: ["get_weather"] } },
      },
    });
    expect(response.text).toBe("It is sunny.");
    const sent = openaiUpstream.requests.at(-1)!.body as any;
    expect(sent.tools[0]).toEqual({
      type: "function",
      function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: ["string", "null"] } }, required: ["city"] } },
    });
    expect(sent.tool_choice).toEqual({ type: "function", function: { name: "get_weather" } });
    const callId = sent.messages[1].tool_calls[0].id;
    expect(sent.messages[1]).toMatchObject({ role: "assistant", tool_calls: [{ type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] });
    expect(sent.messages[2]).toEqual({ role: "tool", tool_call_id: callId, content: '{"forecast":"sunny"}' });
  });

  test("JSON schema output becomes response_format json_schema", async () => {
    openaiUpstream.enqueue({ kind: "ok", content: '{"name":"Ada"}' });
    const response = await client().models.generateContent({
      model: "gpt-4o-mini",
      contents: "Name?",
      config: { responseMimeType: "application/json", responseJsonSchema: { type: "object", properties: { name: { type: "string" } } } },
    });
    expect(JSON.parse(response.text!)).toEqual({ name: "Ada" });
    expect((openaiUpstream.requests.at(-1)!.body as any).response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "response", schema: { type: "object", properties: { name: { type: "string" } } } },
    });
  });

  test("embeddings go as OpenAI embeddings and come back in Google's shape", async () => {
    const response = await client("v1beta").models.embedContent({ model: "text-embedding-3-small", contents: ["one", "two"] });
    expect(response.embeddings).toHaveLength(2);
    expect(response.embeddings![0]!.values!.length).toBeGreaterThan(0);
    expect(openaiUpstream.requests.at(-1)!.body).toMatchObject({ model: "text-embedding-3-small", input: ["one", "two"], encoding_format: "float" });
    expect(await lastLog()).toMatchObject({ endpoint: "gemini.batchEmbedContents", status: 200 });
  });

  test("countTokens is counted locally and marked estimated", async () => {
    const response = await fetch(`${gatewayUrl}/v1beta/models/gpt-4o-mini:countTokens`, {
      method: "POST",
      headers: { "x-goog-api-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hello there" }] }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-tollgate-estimated")).toBe("true");
    expect(((await response.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect((await client().models.countTokens({ model: "gpt-4o-mini", contents: "Hello there" })).totalTokens).toBeGreaterThan(0);
  });

  test("what only Gemini can carry is refused with a 400 in Google's shape, not dropped", async () => {
    const { status, body } = await apiErrorOf(client().models.generateContent({ model: "gpt-4o-mini", contents: "News?", config: { tools: [{ googleSearch: {} }] } }));
    expect(status).toBe(400);
    expect(body.error.status).toBe("INVALID_ARGUMENT");
    expect(body.error.message).toContain("googleSearch");
    const speech = await apiErrorOf(client().models.generateContent({ model: "gpt-4o-mini", contents: "Say hi", config: { responseModalities: ["AUDIO" as any] } }));
    expect(speech.body.error.message).toContain("responseModalities");
  });
});

describe("@google/genai against an Anthropic channel (translated)", () => {
  test("text, and a function call the model makes comes back as a functionCall part with an id", async () => {
    anthropicUpstream.enqueue({ kind: "text", text: "Bonjour", inputTokens: 11, outputTokens: 2 });
    expect((await client().models.generateContent({ model: "claude-sonnet-4-5", contents: "Salut" })).text).toBe("Bonjour");
    anthropicUpstream.enqueue({ kind: "tool", name: "lookup", input: { query: "tollgate" } });
    const response = await client().models.generateContent({
      model: "claude-sonnet-4-5",
      contents: "Look it up",
      config: { tools: [{ functionDeclarations: [{ name: "lookup", parametersJsonSchema: { type: "object", properties: { query: { type: "string" } } } }] }] },
    });
    const call = response.functionCalls![0]!;
    expect(call).toMatchObject({ name: "lookup", args: { query: "tollgate" } });
    expect(call.id).toBeString();
    // The round trip: the client answers the call by its id; Anthropic gets a tool_result for the same id.
    anthropicUpstream.enqueue({ kind: "text", text: "Found it" });
    const followUp = await client().models.generateContent({
      model: "claude-sonnet-4-5",
      contents: [
        { role: "user", parts: [{ text: "Look it up" }] },
        { role: "model", parts: [{ functionCall: call }] },
        { role: "user", parts: [{ functionResponse: { id: call.id, name: "lookup", response: { result: "a gateway" } } }] },
      ],
      config: { tools: [{ functionDeclarations: [{ name: "lookup", parametersJsonSchema: { type: "object", properties: { query: { type: "string" } } } }] }] },
    });
    expect(followUp.text).toBe("Found it");
    const sent = anthropicUpstream.requests.at(-1)!.body as any;
    expect(sent.messages[1].content[0]).toMatchObject({ type: "tool_use", id: call.id, name: "lookup" });
    expect(sent.messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: call.id });
  });

  test("a stream with a function call ends with the whole call and usage", async () => {
    anthropicUpstream.enqueue({ kind: "tool", name: "lookup", input: { query: "stream" } });
    const chunks = [];
    for await (const chunk of await client("v1beta").models.generateContentStream({
      model: "claude-sonnet-4-5",
      contents: "Look it up",
      config: { tools: [{ functionDeclarations: [{ name: "lookup", parametersJsonSchema: { type: "object", properties: { query: { type: "string" } } } }] }] },
    })) {
      chunks.push(chunk);
    }
    const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: "lookup", args: { query: "stream" } });
    expect(chunks.at(-1)!.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(await lastLog()).toMatchObject({ endpoint: "gemini.streamGenerateContent", status: 200, usageEstimated: false });
  });

  test("JSON schema output (Google's Schema) reaches Anthropic as structured output", async () => {
    anthropicUpstream.enqueue({ kind: "json", value: { answer: 42 } });
    const response = await client().models.generateContent({
      model: "claude-sonnet-4-5",
      contents: "Answer?",
      config: { responseMimeType: "application/json", responseSchema: { type: Type.OBJECT, properties: { answer: { type: Type.INTEGER } }, required: ["answer"] } },
    });
    expect(JSON.parse(response.text!)).toEqual({ answer: 42 });
  });
});

describe("keys, models and refusals in Google's shapes", () => {
  test("the key is taken from ?key= as Google's API takes it, and from a Bearer header", async () => {
    geminiUpstream.enqueue({ kind: "text", text: "by query" });
    const byQuery = await fetch(`${gatewayUrl}/v1beta/models/gemini-flash:generateContent?key=${secret}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }] }),
    });
    expect(byQuery.status).toBe(200);
    expect(((await byQuery.json()) as any).candidates[0].content.parts[0].text).toBe("by query");
    // The upstream gets the channel's key, never the client's.
    expect(geminiUpstream.requests.at(-1)!.search).toBe("");
    const byBearer = await fetch(`${gatewayUrl}/v1beta/models/gemini-flash:countTokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }] }),
    });
    expect(byBearer.status).toBe(200);
  });

  test("a bad key is answered as Google answers one: 400 INVALID_ARGUMENT, API_KEY_INVALID; no key 403 PERMISSION_DENIED", async () => {
    const { status, body } = await apiErrorOf(client(undefined, "sk-not-a-real-key").models.generateContent({ model: "gemini-flash", contents: "Hi" }));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: "API key not valid. Please pass a valid API key." });
    expect(body.error.details[0].reason).toBe("API_KEY_INVALID");
    const missing = await fetch(`${gatewayUrl}/v1beta/models/gemini-flash:generateContent`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as any).error.status).toBe("PERMISSION_DENIED");
  });

  test("an unknown model is 404 NOT_FOUND, a streamed call without alt=sse a clear 400", async () => {
    const { status, body } = await apiErrorOf(client().models.generateContent({ model: "no-such-model", contents: "Hi" }));
    expect(status).toBe(404);
    expect(body.error.status).toBe("NOT_FOUND");
    const arrayStream = await fetch(`${gatewayUrl}/v1beta/models/gemini-flash:streamGenerateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": secret },
      body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }] }),
    });
    expect(arrayStream.status).toBe(400);
    expect(((await arrayStream.json()) as any).error.message).toContain("alt=sse");
  });

  test("models.list and models.get answer in Google's shape on both versions, while OpenAI's /v1/models is unchanged", async () => {
    for (const version of ["v1", "v1beta"] as const) {
      const names: string[] = [];
      for await (const model of await client(version).models.list({ config: { pageSize: 2 } })) names.push(model.name!);
      expect(names).toEqual(["models/claude-sonnet-4-5", "models/gemini-embedding", "models/gemini-flash", "models/gpt-4o-mini", "models/text-embedding-3-small"]);
      const model = await client(version).models.get({ model: "gemini-flash" });
      expect(model).toMatchObject({ name: "models/gemini-flash", supportedActions: expect.arrayContaining(["generateContent"]) });
    }
    const openAIList = await fetch(`${gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await openAIList.json()) as any).object).toBe("list");
    const openAIModel = await fetch(`${gatewayUrl}/v1/models/gpt-4o-mini`, { headers: { authorization: `Bearer ${secret}` } });
    expect(await openAIModel.json()).toMatchObject({ id: "gpt-4o-mini", object: "model" });
    const wrongMethod = await fetch(`${gatewayUrl}/v1/models/gpt-4o-mini`, { method: "POST", headers: { authorization: `Bearer ${secret}` } });
    expect(wrongMethod.status).toBe(405);
  });

  test("a request-rate refusal is 429 RESOURCE_EXHAUSTED, logged", async () => {
    const limited = await seed.token({ userId, rpmLimit: 1 });
    openaiUpstream.enqueue({ kind: "ok", content: "first" });
    await client(undefined, limited.secret).models.generateContent({ model: "gpt-4o-mini", contents: "Hi" });
    const { status, body } = await apiErrorOf(client(undefined, limited.secret).models.generateContent({ model: "gpt-4o-mini", contents: "Hi" }));
    expect(status).toBe(429);
    expect(body.error.status).toBe("RESOURCE_EXHAUSTED");
    expect((await logsOf(limited.row.id)).map((log) => log.status)).toEqual([200, 429]);
  });

  test("a budget refusal is 429 RESOURCE_EXHAUSTED", async () => {
    await seed.price("gpt-4o-mini", 1000, 1000);
    const poor = await seed.token({ userId, quotaLimit: 1 });
    const { status, body } = await apiErrorOf(client(undefined, poor.secret).models.generateContent({ model: "gpt-4o-mini", contents: "Hi" }));
    expect(status).toBe(429);
    expect(body.error.status).toBe("RESOURCE_EXHAUSTED");
    expect((await logsOf(poor.row.id)).at(-1)).toMatchObject({ endpoint: "gemini.generateContent", status: 429, errorCode: "insufficient_quota" });
  });
});
