import { describe, expect, test } from "bun:test";
import type { ChatTranslationInput } from "../provider-adapter";
import { TranslationError } from "../provider-adapter";
import { buildChatRequest } from "./build-request";

function build(body: Record<string, unknown>) {
  const input: ChatTranslationInput = {
    channel: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "AIza-test-key", config: {} },
    upstreamModel: "gemini-2.5-flash",
    body: { model: "gemini-flash", messages: [{ role: "user", content: "Hi" }], ...body },
    stream: false,
  };
  return JSON.parse(buildChatRequest(input).body);
}

function refusal(body: Record<string, unknown>): { param: string | null; code: string } | null {
  try {
    build(body);
    return null;
  } catch (error) {
    if (error instanceof TranslationError) return { param: error.param, code: error.code };
    throw error;
  }
}

describe("OpenAI chat parameters on Gemini", () => {
  test("parameters Gemini cannot carry are refused with unsupported_parameter, naming them", () => {
    const refused: Record<string, unknown> = {
      logprobs: true,
      top_logprobs: 2,
      logit_bias: { "1": 5 },
      parallel_tool_calls: false,
      service_tier: "priority",
      modalities: ["audio"],
      audio: { voice: "alloy" },
      prediction: { type: "content", content: "x" },
      web_search_options: {},
      verbosity: "high",
      functions: [],
      function_call: "none",
      safety_settings: [],
    };
    for (const [name, value] of Object.entries(refused)) {
      expect(refusal({ [name]: value })).toEqual({ param: name, code: "unsupported_parameter" });
    }
  });

  test("no-op values and bookkeeping fields are accepted", () => {
    expect(refusal({ logprobs: false, parallel_tool_calls: true, service_tier: "default", user: "u", store: false, metadata: {} })).toBeNull();
  });

  test("n, penalties, seed, top_k and a json_schema reach generationConfig", () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };
    const body = build({
      n: 2,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      seed: 7,
      top_k: 20,
      response_format: { type: "json_schema", json_schema: { name: "place", strict: true, schema } },
    });
    expect(body.generationConfig).toEqual({
      candidateCount: 2,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      seed: 7,
      topK: 20,
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
  });

  test("a malformed response_format is the client's error", () => {
    expect(refusal({ response_format: { type: "json_schema" } })).toEqual({ param: "response_format.json_schema", code: "invalid_value" });
    expect(refusal({ response_format: { type: "yaml" } })).toEqual({ param: "response_format.type", code: "invalid_value" });
  });
});
