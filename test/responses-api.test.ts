import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { requestLogs } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import OpenAI from "openai";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FakeOpenAIResponsesUpstream, startFakeOpenAIResponsesUpstream } from "./helpers/fake-openai-responses-upstream";
import { type FakeOpenAIUpstream, startFakeOpenAIUpstream } from "./helpers/fake-openai-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase;
let chatOnly: FakeOpenAIUpstream;
let responsesUpstream: FakeOpenAIResponsesUpstream;
let anthropicUpstream: FakeAnthropicUpstream;
let geminiUpstream: FakeGeminiUpstream;
let gateway: GatewayUnderTest;
let baseURL: string;
let tokenId: number;
let client: OpenAI;

/** Models: a chat-only vendor, a chat-only server with tool calls, a native Responses channel, Claude, Gemini. */
const CHAT_ONLY = "deepseek-chat";
const CHAT_TOOLS = "qwen-local";
const NATIVE = "gpt-4o";
const CLAUDE = "claude-sonnet-4-5";
const GEMINI = "gemini-flash";

async function lastLog() {
  await gateway.services.usage.flush();
  const logs = await database.handle.db.select().from(requestLogs).where(eq(requestLogs.tokenId, tokenId)).orderBy(asc(requestLogs.id));
  return logs.at(-1)!;
}

beforeAll(async () => {
  database = await freshDatabase();
  chatOnly = await startFakeOpenAIUpstream();
  responsesUpstream = await startFakeOpenAIResponsesUpstream({ requireApiKey: "sk-native" });
  anthropicUpstream = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" });
  geminiUpstream = await startFakeGeminiUpstream({ requireApiKey: "gemini-key" });
  gateway = await startGateway(database.handle);
  baseURL = await gateway.listen();
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  await seed.channel({ name: "deepseek", baseUrl: chatOnly.url, models: [CHAT_ONLY], config: { preset: "deepseek" } });
  await seed.channel({ name: "local", baseUrl: responsesUpstream.url, apiKey: "sk-native", models: [CHAT_TOOLS] });
  await seed.channel({ name: "openai", baseUrl: responsesUpstream.url, apiKey: "sk-native", models: [NATIVE], config: { preset: "openai" } });
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, apiKey: "sk-ant-upstream", models: [CLAUDE] });
  await seed.channel({
    name: "gemini",
    type: "gemini",
    baseUrl: geminiUpstream.url,
    apiKey: "gemini-key",
    models: [GEMINI],
    modelMapping: { [GEMINI]: "gemini-2.5-flash" },
  });
  const token = await seed.token({ userId });
  tokenId = token.row.id;
  client = new OpenAI({ apiKey: token.secret, baseURL, maxRetries: 0 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await chatOnly?.close();
  await responsesUpstream?.close();
  await anthropicUpstream?.close();
  await geminiUpstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

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
