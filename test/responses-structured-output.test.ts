import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateObject } from "ai";
import OpenAI from "openai";
import { zodTextFormat } from "openai/helpers/zod";
import { z } from "zod";
import { type ResponsesStack, stackModels, startResponsesStack } from "./helpers/responses-stack";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// generateObject is what the issue names; the SDK's deprecation notice for it is noise here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const Weather = z.object({ city: z.string(), celsius: z.number(), conditions: z.array(z.string()) });
const answer = { city: "Paris", celsius: 18.5, conditions: ["sunny", "light breeze"] };

let stack: ResponsesStack;
let openai: OpenAI;
let provider: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  stack = await startResponsesStack();
  const { secret } = await stack.seed.token({ userId: stack.userId });
  openai = new OpenAI({ apiKey: secret, baseURL: stack.baseURL, maxRetries: 0 });
  provider = createOpenAI({ apiKey: secret, baseURL: stack.baseURL });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

// The fakes answer prose around a JSON block unless the request carries the schema the way each provider
// takes it (a forced tool for Anthropic, responseMimeType + responseSchema for Gemini): a text.format lost
// on the way from the Responses API to the channel fails these tests.
const channels = [
  { label: "an Anthropic channel", model: stackModels.claude, enqueue: () => stack.anthropic.enqueue({ kind: "json", value: answer }) },
  { label: "a Gemini channel", model: stackModels.gemini, enqueue: () => stack.gemini.enqueue({ kind: "json", value: answer }) },
];

for (const channel of channels) {
  describe(`the Responses API's text.format through ${channel.label}`, () => {
    test("openai responses.parse with a zod text format gets the parsed object", async () => {
      channel.enqueue();
      const response = await openai.responses.parse({
        model: channel.model,
        input: "Weather in Paris?",
        text: { format: zodTextFormat(Weather, "weather") },
      });
      expect(response.output_parsed).toEqual(answer);
      expect(response.status).toBe("completed");
    });

    test("openai's streamed responses assemble the same JSON from output_text deltas", async () => {
      channel.enqueue();
      const stream = openai.responses.stream({
        model: channel.model,
        input: "Weather in Paris?",
        text: { format: zodTextFormat(Weather, "weather") },
      });
      let deltas = 0;
      stream.on("response.output_text.delta", () => deltas++);
      const final = await stream.finalResponse();
      expect(final.output_parsed).toEqual(answer);
      expect(deltas).toBeGreaterThan(0);
    });

    test("the Vercel AI SDK's default provider (/v1/responses) generateObject gets valid JSON", async () => {
      channel.enqueue();
      const { object } = await generateObject({ model: provider(channel.model), schema: Weather, prompt: "Weather in Paris?", maxRetries: 0 });
      expect(Weather.parse(object)).toEqual(answer);
    });
  });
}

describe("what reaches the upstreams from text.format", () => {
  test("Anthropic gets the schema as a forced tool and Gemini as responseSchema", () => {
    const forced = stack.anthropic.requests.at(-1)!.body;
    expect(forced.tool_choice).toEqual({ type: "tool", name: forced.tools[0].name });
    expect(Object.keys(forced.tools[0].input_schema.properties)).toEqual(["city", "celsius", "conditions"]);
    const gemini = stack.gemini.requests.at(-1)!.body;
    expect(gemini.generationConfig.responseMimeType).toBe("application/json");
    expect(Object.keys(gemini.generationConfig.responseSchema.properties)).toEqual(["city", "celsius", "conditions"]);
  });
});
