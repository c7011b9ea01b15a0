import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, streamObject } from "ai";
import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import { z } from "zod";
import { type FakeAnthropicUpstream, startFakeAnthropicUpstream } from "./helpers/fake-anthropic-upstream";
import { type FakeGeminiUpstream, startFakeGeminiUpstream } from "./helpers/fake-gemini-upstream";
import { type FreshDatabase, freshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// generateObject and streamObject are what the issue names; the SDK's deprecation notice for them is noise here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const Weather = z.object({ city: z.string(), celsius: z.number(), conditions: z.array(z.string()) });
const answer = { city: "Paris", celsius: 18.5, conditions: ["sunny", "light breeze"] };

let database: FreshDatabase;
let anthropicUpstream: FakeAnthropicUpstream;
let geminiUpstream: FakeGeminiUpstream;
let gateway: GatewayUnderTest;
let openai: OpenAI;
let provider: ReturnType<typeof createOpenAI>;
let langchainOptions: { apiKey: string; configuration: { baseURL: string }; maxRetries: number };

beforeAll(async () => {
  database = await freshDatabase();
  anthropicUpstream = await startFakeAnthropicUpstream({ requireApiKey: "sk-ant-upstream" });
  geminiUpstream = await startFakeGeminiUpstream({ requireApiKey: "AIza-upstream" });
  gateway = await startGateway(database.handle);
  const baseURL = await gateway.listen();
  const seed = seeder(database.handle, gateway.secretBox, [gateway]);
  const userId = (await seed.user()).id;
  await seed.channel({ name: "claude", type: "anthropic", baseUrl: anthropicUpstream.url, apiKey: "sk-ant-upstream", models: ["claude-sonnet-4-5"] });
  await seed.channel({
    name: "claude-native",
    type: "anthropic",
    baseUrl: anthropicUpstream.url,
    apiKey: "sk-ant-upstream",
    models: ["claude-opus-4-1"],
    config: { structuredOutput: "native" },
  });
  await seed.channel({ name: "gemini", type: "gemini", baseUrl: geminiUpstream.url, apiKey: "AIza-upstream", models: ["gemini-2.5-flash"] });
  const { secret } = await seed.token({ userId });
  openai = new OpenAI({ apiKey: secret, baseURL, maxRetries: 0 });
  provider = createOpenAI({ apiKey: secret, baseURL });
  langchainOptions = { apiKey: secret, configuration: { baseURL }, maxRetries: 0 };
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await gateway?.stop();
  await anthropicUpstream?.close();
  await geminiUpstream?.close();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

const channels = [
  { label: "an Anthropic channel (forced tool)", model: "claude-sonnet-4-5", enqueue: () => anthropicUpstream.enqueue({ kind: "json", value: answer }) },
  { label: "an Anthropic channel (output_config.format)", model: "claude-opus-4-1", enqueue: () => anthropicUpstream.enqueue({ kind: "json", value: answer }) },
  { label: "a Gemini channel (responseSchema)", model: "gemini-2.5-flash", enqueue: () => geminiUpstream.enqueue({ kind: "json", value: answer }) },
];

for (const channel of channels) {
  describe(`structured output through ${channel.label}`, () => {
    test("openai chat.completions.parse with a zod schema gets the parsed object", async () => {
      channel.enqueue();
      const completion = await openai.chat.completions.parse({
        model: channel.model,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        response_format: zodResponseFormat(Weather, "weather"),
      });
      expect(completion.choices[0]!.message.parsed).toEqual(answer);
      expect(completion.choices[0]!.finish_reason).toBe("stop");
    });

    test("openai's streamed parse assembles the same object from content deltas", async () => {
      channel.enqueue();
      const stream = openai.chat.completions.stream({
        model: channel.model,
        messages: [{ role: "user", content: "Weather in Paris?" }],
        response_format: zodResponseFormat(Weather, "weather"),
      });
      let deltas = 0;
      stream.on("content.delta", () => deltas++);
      const final = await stream.finalChatCompletion();
      expect(final.choices[0]!.message.parsed).toEqual(answer);
      expect(deltas).toBeGreaterThan(0);
    });

    test("the Vercel AI SDK's generateObject on the chat-completions provider gets valid JSON", async () => {
      channel.enqueue();
      const { object } = await generateObject({ model: provider.chat(channel.model), schema: Weather, prompt: "Weather in Paris?" });
      expect(Weather.parse(object)).toEqual(answer);
    });

    test("LangChain's ChatOpenAI withStructuredOutput gets the object, with the parameters it sends by default", async () => {
      channel.enqueue();
      const model = new ChatOpenAI({ model: channel.model, ...langchainOptions }).withStructuredOutput(Weather, { name: "weather", method: "jsonSchema" });
      expect(await model.invoke("Weather in Paris?")).toEqual(answer);
    });

    test("the Vercel AI SDK's streamObject gets the same object", async () => {
      channel.enqueue();
      const result = streamObject({ model: provider.chat(channel.model), schema: Weather, prompt: "Weather in Paris?" });
      // The result's promises settle once its stream has been read.
      const partials: unknown[] = [];
      for await (const partial of result.partialObjectStream) partials.push(partial);
      expect(partials.length).toBeGreaterThan(0);
      expect(Weather.parse(await result.object)).toEqual(answer);
    });
  });
}

describe("what reaches the upstreams", () => {
  test("Anthropic gets the schema as a forced tool; a native channel gets output_config.format; Gemini gets responseSchema", async () => {
    const forced = anthropicUpstream.requests.filter((request) => request.body?.model === "claude-sonnet-4-5").at(-1)!.body;
    expect(forced.tool_choice).toEqual({ type: "tool", name: forced.tools[0].name });
    expect(forced.tools[0].input_schema.required).toEqual(["city", "celsius", "conditions"]);
    const native = anthropicUpstream.requests.filter((request) => request.body?.model === "claude-opus-4-1").at(-1)!.body;
    expect(native.output_config.format.schema.required).toEqual(["city", "celsius", "conditions"]);
    expect(native.tools).toBeUndefined();
    const gemini = geminiUpstream.requests.at(-1)!.body;
    expect(gemini.generationConfig.responseMimeType).toBe("application/json");
    expect(gemini.generationConfig.responseSchema.required).toEqual(["city", "celsius", "conditions"]);
  });
});

describe("parameters a translating channel cannot carry", () => {
  test("are refused with 400 unsupported_parameter naming them, before any upstream call", async () => {
    const before = anthropicUpstream.requests.length;
    const error = await openai.chat.completions
      .create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }], seed: 42 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ code: "unsupported_parameter", param: "seed", type: "invalid_request_error" });
    expect(anthropicUpstream.requests.length).toBe(before);
    const logitBias = await openai.chat.completions
      .create({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "Hi" }], logit_bias: { "1": 3 } })
      .catch((caught) => caught);
    expect(logitBias.error).toMatchObject({ code: "unsupported_parameter", param: "logit_bias" });
  });

  test("their no-op values pass", async () => {
    anthropicUpstream.enqueue({ kind: "text", text: "Hi there" });
    const completion = await openai.chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "Hi" }],
      n: 1,
      logprobs: false,
      presence_penalty: 0,
    });
    expect(completion.choices[0]!.message.content).toBe("Hi there");
  });
});
