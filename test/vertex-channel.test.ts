import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { channels } from "@tollgate/db";
import { createChannelProber } from "@tollgate/upstream";
import { eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeGoogleTokenEndpoint, startFakeGoogleTokenEndpoint } from "./helpers/fake-google-token-endpoint";
import { type FakeVertexUpstream, startFakeVertexUpstream } from "./helpers/fake-vertex-upstream";
import { readChatStream } from "./helpers/read-chat-stream";
import { sdkClients, seeder, type StackWith, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

/**
 * A Vertex AI channel through the gateway, end to end: the OpenAI and Anthropic clients on one side, on the
 * other a fake Google token endpoint that verifies the service account's signed assertion and a fake Vertex
 * that takes only the access tokens it issued.
 */

const PROJECT = "acme-ai";
const LOCATION = "us-east5";

let stack: StackWith<{ tokens: FakeGoogleTokenEndpoint; vertex: FakeVertexUpstream }>;
let tokens: FakeGoogleTokenEndpoint;
let vertex: FakeVertexUpstream;
let seed: ReturnType<typeof seeder>;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;
let tokenId: number;
let clientEmail: string;
let keyText: string;

const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: "function",
  function: { name: "get_weather", description: "Current weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
};

const modelPath = (publisher: string, model: string, method: string) =>
  `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/${publisher}/models/${model}:${method}`;

const lastLog = () => stack.lastLog(tokenId);

/** A Vertex channel of its own service account, serving `models` (public name -> Vertex model id). */
async function vertexChannel(name: string, mapping: Record<string, string>, key?: string) {
  const account = key ? { keyText: key } : await tokens.serviceAccount(PROJECT);
  return seed.channel({
    name,
    type: "vertex",
    baseUrl: vertex.url,
    apiKey: account.keyText,
    config: { project: PROJECT, location: LOCATION },
    models: Object.keys(mapping),
    modelMapping: mapping,
  });
}

const exchangesBy = (email: string) => tokens.exchanges.requests.filter((exchange) => exchange.claims.iss === email);

beforeAll(async () => {
  stack = await startStackWith(async (keep) => {
    const endpoint = await keep(startFakeGoogleTokenEndpoint());
    return { tokens: endpoint, vertex: await keep(startFakeVertexUpstream({ tokens: endpoint, project: PROJECT, location: LOCATION })) };
  });
  ({ tokens, vertex } = stack.fakes);
  seed = stack.seed;
  const { userId } = stack;
  const baseURL = await stack.gateway.listen();
  ({ keyText, clientEmail } = await tokens.serviceAccount(PROJECT));
  await vertexChannel(
    "vertex",
    { "gemini-flash": "gemini-2.5-flash", "claude-sonnet": "claude-sonnet-4@20250514", "text-embedding": "text-embedding-005" },
    keyText,
  );
  await seed.price("gemini-flash", 1, 4, 0.25);
  await seed.price("claude-sonnet", 3, 15, 0.3, { cacheWrite: 3.75, cacheWrite1h: 6 });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  ({ openai, anthropic } = sdkClients(baseURL, token.secret));
  genai = new GoogleGenAI({ apiKey: token.secret, httpOptions: { baseUrl: baseURL.replace(/\/v1$/, ""), apiVersion: "v1beta" } });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

describe("the openai client against Gemini on Vertex AI", () => {
  test("text goes to the project's generateContent with the exchanged access token, and cached prompt tokens are billed at the cached price", async () => {
    vertex.enqueueGemini({ kind: "text", text: "Vertex Gemini says hello", promptTokens: 1000, candidatesTokens: 10, cachedTokens: 800 });
    const completion = await openai.chat.completions.create({
      model: "gemini-flash",
      messages: [{ role: "system", content: "Be kind." }, { role: "user", content: "Hello" }],
    });
    expect(completion.choices[0]!.message.content).toBe("Vertex Gemini says hello");
    expect(completion.model).toBe("gemini-flash");
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("google", "gemini-2.5-flash", "generateContent"));
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(sent.body.systemInstruction).toBeTruthy();
    // The service-account key goes nowhere but into the signature: not in any header sent to Vertex.
    expect(JSON.stringify(sent.headers)).not.toContain("PRIVATE KEY");
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 1000, completionTokens: 10, cachedTokens: 800 });
    // 200 x $1/1M + 800 x $0.25/1M + 10 x $4/1M = 200 + 200 + 40 micro-USD
    expect(log.cost).toBe(440);
  });

  test("stream asks for alt=sse and arrives as chunks with usage", async () => {
    vertex.enqueueGemini({ kind: "text", text: "alpha beta gamma", promptTokens: 5, candidatesTokens: 3 });
    const stream = await openai.chat.completions.create({
      model: "gemini-flash",
      messages: [{ role: "user", content: "Greek letters" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const { text, usage } = await readChatStream(stream);
    expect(text).toBe("alpha beta gamma");
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 3 });
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("google", "gemini-2.5-flash", "streamGenerateContent"));
    expect(sent.search).toBe("?alt=sse");
  });

  test("tools: a functionCall answer arrives as tool_calls", async () => {
    vertex.enqueueGemini({ kind: "function", name: "get_weather", args: { city: "Rome" } });
    const completion = await openai.chat.completions.create({ model: "gemini-flash", messages: [{ role: "user", content: "Weather in Rome?" }], tools: [weatherTool] });
    const call = completion.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("get_weather");
    expect(call.type === "function" && JSON.parse(call.function.arguments)).toEqual({ city: "Rome" });
    expect(vertex.requests.requests.at(-1)!.body.tools[0].functionDeclarations[0].name).toBe("get_weather");
  });

  test("embeddings go to :predict, one instance per input, with Vertex's token counts as usage", async () => {
    const response = await openai.embeddings.create({ model: "text-embedding", input: ["first text", "and the second one"], encoding_format: "float" });
    expect(response.data).toHaveLength(2);
    expect(response.data[0]!.embedding).toHaveLength(8);
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("google", "text-embedding-005", "predict"));
    expect(sent.body.instances).toEqual([{ content: "first text" }, { content: "and the second one" }]);
    expect(response.usage.prompt_tokens).toBe(Math.ceil(10 / 4) + Math.ceil(18 / 4));
  });

  test("a 429 from Vertex is relayed as a rate limit error", async () => {
    vertex.enqueueGemini({ kind: "error", status: 429, message: "Resource exhausted. Please try again later." });
    const error = await openai.chat.completions.create({ model: "gemini-flash", messages: [{ role: "user", content: "x" }] }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.message).toContain("Resource exhausted");
  });
});

describe("Claude on Vertex AI", () => {
  test("the openai client's request goes to rawPredict as an Anthropic body with Vertex's version and no model; cache reads and writes billed", async () => {
    vertex.enqueueClaude({ kind: "text", text: "Bonjour from Claude on Vertex", inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000, cacheCreationTokens: 200 });
    const completion = await openai.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "Say hi in French" }] });
    expect(completion.choices[0]!.message.content).toBe("Bonjour from Claude on Vertex");
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("anthropic", "claude-sonnet-4@20250514", "rawPredict"));
    expect(sent.body.anthropic_version).toBe("vertex-2023-10-16");
    expect(sent.body.model).toBeUndefined();
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 1300, completionTokens: 20, cachedTokens: 1000, cacheWriteTokens: 200, cacheWrite1hTokens: 0 });
    // 100 x $3/1M + 1000 x $0.30/1M + 200 cache writes (5-minute, as Vertex reports a write without its lifetime split) x $3.75/1M + 20 x $15/1M
    expect(log.cost).toBe(300 + 300 + 750 + 300);
  });

  test("Claude's 1-hour cache writes on Vertex are billed at the 1-hour write price, apart from the 5-minute ones", async () => {
    vertex.enqueueClaude({ kind: "text", text: "cached for an hour", inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000, cacheCreationTokens: 200, cacheWrite1hTokens: 300 });
    await openai.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "hi" }] });
    const log = await lastLog();
    expect(log).toMatchObject({ promptTokens: 1600, cachedTokens: 1000, cacheWriteTokens: 200, cacheWrite1hTokens: 300 });
    // 100 x $3/1M + 1000 x $0.30/1M + 200 x $3.75/1M + 300 x $6/1M + 20 x $15/1M
    expect(log.cost).toBe(300 + 300 + 750 + 1800 + 300);
  });

  test("the openai client's stream goes to streamRawPredict, tool calls included", async () => {
    vertex.enqueueClaude({ kind: "tool", name: "get_weather", input: { city: "Oslo" } });
    const stream = await openai.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "Weather in Oslo?" }], tools: [weatherTool], stream: true });
    const { toolArguments, finish } = await readChatStream(stream);
    expect(JSON.parse(toolArguments)).toEqual({ city: "Oslo" });
    expect(finish).toBe("tool_calls");
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("anthropic", "claude-sonnet-4@20250514", "streamRawPredict"));
    expect(sent.body.stream).toBe(true);
  });

  test("the Anthropic client's Messages request is relayed natively to rawPredict, its anthropic-beta kept", async () => {
    vertex.enqueueClaude({ kind: "text", text: "Native hello", inputTokens: 12, outputTokens: 3 });
    const message = await anthropic.messages.create(
      { model: "claude-sonnet", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] },
      { headers: { "anthropic-beta": "context-1m-2025-08-07" } },
    );
    expect(message.content[0]).toMatchObject({ type: "text", text: "Native hello" });
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("anthropic", "claude-sonnet-4@20250514", "rawPredict"));
    expect(sent.body).toEqual({ anthropic_version: "vertex-2023-10-16", max_tokens: 64, messages: [{ role: "user", content: "Hello" }] });
    expect(sent.headers["anthropic-beta"]).toBe("context-1m-2025-08-07");
    expect(await lastLog()).toMatchObject({ promptTokens: 12, completionTokens: 3 });
  });

  test("the Anthropic client's stream is relayed natively from streamRawPredict", async () => {
    vertex.enqueueClaude({ kind: "text", text: "streamed natively", inputTokens: 7, outputTokens: 4 });
    const stream = anthropic.messages.stream({ model: "claude-sonnet", max_tokens: 64, messages: [{ role: "user", content: "Stream" }] });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: "text", text: "streamed natively" });
    expect(vertex.requests.requests.at(-1)!.path).toBe(modelPath("anthropic", "claude-sonnet-4@20250514", "streamRawPredict"));
    expect(await lastLog()).toMatchObject({ promptTokens: 7, completionTokens: 4 });
  });

  test("the Anthropic client asking for a Gemini model on Vertex is translated through chat to generateContent", async () => {
    vertex.enqueueGemini({ kind: "text", text: "Gemini via Messages", promptTokens: 6, candidatesTokens: 3 });
    const message = await anthropic.messages.create({ model: "gemini-flash", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Gemini via Messages" });
    expect(vertex.requests.requests.at(-1)!.path).toBe(modelPath("google", "gemini-2.5-flash", "generateContent"));
  });

  test("Claude's own error is relayed with its message", async () => {
    vertex.enqueueClaude({ kind: "error", status: 400, type: "invalid_request_error", message: "messages: roles must alternate" });
    const error = await openai.chat.completions.create({ model: "claude-sonnet", messages: [{ role: "user", content: "x" }] }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.message).toContain("roles must alternate");
  });
});

describe("@google/genai against a Vertex channel", () => {
  test("generateContent for a Gemini model goes to Vertex's generateContent with the client's body as it came", async () => {
    vertex.enqueueGemini({ kind: "text", text: "Native on Vertex", promptTokens: 11, candidatesTokens: 4 });
    const response = await genai.models.generateContent({ model: "gemini-flash", contents: "Hello Vertex" });
    expect(response.text).toBe("Native on Vertex");
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("google", "gemini-2.5-flash", "generateContent"));
    expect(sent.body.contents).toEqual([{ role: "user", parts: [{ text: "Hello Vertex" }] }]);
    expect(await lastLog()).toMatchObject({ promptTokens: 11, completionTokens: 4 });
  });

  test("generateContentStream goes to streamGenerateContent?alt=sse", async () => {
    vertex.enqueueGemini({ kind: "text", text: "one two three" });
    const pieces: string[] = [];
    for await (const chunk of await genai.models.generateContentStream({ model: "gemini-flash", contents: "Count" })) pieces.push(chunk.text ?? "");
    expect(pieces.join("")).toBe("one two three");
    expect(vertex.requests.requests.at(-1)!.search).toBe("?alt=sse");
  });

  test("generateContent for a Claude model is translated to rawPredict", async () => {
    vertex.enqueueClaude({ kind: "text", text: "Claude through the Gemini API", inputTokens: 9, outputTokens: 5 });
    const response = await genai.models.generateContent({ model: "claude-sonnet", contents: "Hi Claude" });
    expect(response.text).toBe("Claude through the Gemini API");
    const sent = vertex.requests.requests.at(-1)!;
    expect(sent.path).toBe(modelPath("anthropic", "claude-sonnet-4@20250514", "rawPredict"));
    expect(sent.body.anthropic_version).toBe("vertex-2023-10-16");
  });

  test("embedContent is translated to Vertex's :predict, and countTokens answered by Vertex", async () => {
    const embedded = await genai.models.embedContent({ model: "text-embedding", contents: ["alpha", "beta"] });
    expect(embedded.embeddings).toHaveLength(2);
    expect(vertex.requests.requests.at(-1)!.path).toBe(modelPath("google", "text-embedding-005", "predict"));
    const counted = await genai.models.countTokens({ model: "gemini-flash", contents: "three little words" });
    expect(counted.totalTokens).toBeGreaterThan(0);
    expect(vertex.requests.requests.at(-1)!.path).toBe(modelPath("google", "gemini-2.5-flash", "countTokens"));
  });
});

describe("the access token", () => {
  test("was exchanged once for every request above (the first), verified by the token endpoint", async () => {
    const exchanges = exchangesBy(clientEmail);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.refused).toBeNull();
    expect(exchanges[0]!.claims).toMatchObject({ iss: clientEmail, aud: tokens.tokenUri, scope: "https://www.googleapis.com/auth/cloud-platform" });
  });

  test("concurrent first requests of a new channel share one exchange", async () => {
    const account = await tokens.serviceAccount(PROJECT);
    await vertexChannel("concurrent", { "gemini-concurrent": "gemini-2.5-flash" }, account.keyText);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => openai.chat.completions.create({ model: "gemini-concurrent", messages: [{ role: "user", content: "hi" }] })),
    );
    expect(answers.every((answer) => typeof answer.choices[0]!.message.content === "string")).toBe(true);
    expect(exchangesBy(account.clientEmail)).toHaveLength(1);
  });

  test("a token that would expire within the refresh margin is replaced before it is sent", async () => {
    const account = await tokens.serviceAccount(PROJECT);
    await vertexChannel("short-lived", { "gemini-short": "gemini-2.5-flash" }, account.keyText);
    // Two minutes is inside the five-minute margin: every request finds its token due and exchanges again.
    tokens.setExpiresIn(120);
    try {
      for (let round = 1; round <= 3; round++) {
        await openai.chat.completions.create({ model: "gemini-short", messages: [{ role: "user", content: "hi" }] });
        expect(exchangesBy(account.clientEmail)).toHaveLength(round);
      }
    } finally {
      tokens.setExpiresIn(3599);
    }
  });

  test("an exchange the token endpoint refuses is the channel's fault: 502, the channel disabled, the key quoted nowhere", async () => {
    const account = await tokens.serviceAccount(PROJECT);
    const forged = await tokens.forgedKey(account.clientEmail);
    const channel = await vertexChannel("forged", { "gemini-forged": "gemini-2.5-flash" }, forged);
    const before = vertex.requests.requests.length;
    const error = await openai.chat.completions.create({ model: "gemini-forged", messages: [{ role: "user", content: "x" }] }).catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.status).toBe(502);
    expect(error.code).toBe("upstream_auth_failed");
    expect(error.message).toContain("invalid_grant: Invalid JWT Signature.");
    expect(exchangesBy(account.clientEmail).at(-1)!.refused).toBe("Invalid JWT Signature.");
    // Nothing reached Vertex without a token.
    expect(vertex.requests.requests.length).toBe(before);
    const privateKey = (JSON.parse(forged) as { private_key: string }).private_key;
    const keyBody = privateKey.split("\n")[1]!;
    expect(error.message).not.toContain(keyBody);
    const [row] = await waitFor(async () => {
      const rows = await stack.database.handle.db.select().from(channels).where(eq(channels.id, channel.id));
      return rows[0]?.status === "auto_disabled" ? rows : null;
    }, "the channel to be disabled");
    expect(row!.statusReason).toContain("Invalid JWT Signature");
    expect(row!.statusReason).not.toContain(keyBody);
  });

  test("the console's Test button authorizes its request the same way: ok with the key, Google's refusal with a forged one", async () => {
    const probe = createChannelProber();
    const stored = { type: "vertex", baseUrl: vertex.url, config: { project: PROJECT, location: LOCATION }, models: ["gemini-2.5-flash"], modelMapping: null };
    expect(await probe({ ...stored, apiKey: keyText })).toMatchObject({ ok: true });
    expect(vertex.requests.requests.at(-1)!.path).toBe(modelPath("google", "gemini-2.5-flash", "generateContent"));
    const failed = await probe({ ...stored, apiKey: await tokens.forgedKey(clientEmail) });
    expect(failed.ok).toBe(false);
    expect(failed.error).toContain("invalid_grant: Invalid JWT Signature.");
  });

  test("a key that is not a service-account key is refused before anything is sent, as the channel's fault", async () => {
    await vertexChannel("not-a-key", { "gemini-nokey": "gemini-2.5-flash" }, "AIzaSy-this-is-an-api-key");
    const exchangesBefore = tokens.exchanges.requests.length;
    const error = await openai.chat.completions.create({ model: "gemini-nokey", messages: [{ role: "user", content: "x" }] }).catch((caught) => caught);
    expect(error.status).toBe(502);
    expect(error.message).toContain("must be a Google service-account JSON key");
    expect(error.message).not.toContain("AIzaSy-this-is-an-api-key");
    expect(tokens.exchanges.requests.length).toBe(exchangesBefore);
  });
});
