import { describe, expect, test } from "bun:test";
import type { ChatTranslationInput } from "../provider-adapter";
import { TranslationError } from "../provider-adapter";
import { buildAnthropicRequest } from "./build-request";

function build(body: Record<string, unknown>) {
  const input: ChatTranslationInput = {
    channel: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config: {} },
    upstreamModel: "claude-sonnet-4-5-20250929",
    body: { model: "claude-sonnet", messages: [{ role: "user", content: "Hi" }], ...body },
    stream: false,
  };
  return JSON.parse(buildAnthropicRequest(input).body);
}

function refusal(body: Record<string, unknown>): { param: string | null; code: string; message: string } | null {
  try {
    build(body);
    return null;
  } catch (error) {
    if (error instanceof TranslationError) return { param: error.param, code: error.code, message: error.message };
    throw error;
  }
}

describe("OpenAI chat parameters on Anthropic", () => {
  test("parameters Anthropic cannot carry are refused with unsupported_parameter, naming them", () => {
    const refused: Record<string, unknown> = {
      n: 2,
      logprobs: true,
      top_logprobs: 3,
      logit_bias: { "50256": -100 },
      presence_penalty: 0.5,
      frequency_penalty: 0.5,
      seed: 42,
      service_tier: "flex",
      modalities: ["text", "audio"],
      audio: { voice: "alloy", format: "wav" },
      prediction: { type: "content", content: "x" },
      reasoning_effort: "high",
      web_search_options: {},
      verbosity: "low",
      functions: [{ name: "f" }],
      function_call: "auto",
      thinking: { type: "enabled", budget_tokens: 2048 },
    };
    for (const [name, value] of Object.entries(refused)) {
      expect(refusal({ [name]: value })).toMatchObject({ param: name, code: "unsupported_parameter" });
    }
    expect(refusal({ seed: 42 })!.message).toContain("Anthropic's Messages API");
  });

  test("their no-op values are accepted and sent nowhere", () => {
    const noOps = {
      n: 1,
      logprobs: false,
      top_logprobs: 0,
      logit_bias: {},
      presence_penalty: 0,
      frequency_penalty: 0,
      service_tier: "auto",
      modalities: ["text"],
      reasoning_effort: "none",
      verbosity: "medium",
      seed: null,
      store: true,
      metadata: { trace: "abc" },
      prompt_cache_key: "k",
      safety_identifier: "s",
    };
    expect(refusal(noOps)).toBeNull();
    expect(Object.keys(build(noOps)).sort()).toEqual(["max_tokens", "messages", "model"]);
  });

  test("translated parameters reach the upstream in Anthropic's terms", () => {
    const body = build({ max_completion_tokens: 50, temperature: 0.2, top_k: 40, stop: ["END"], user: "u1" });
    expect(body).toMatchObject({ max_tokens: 50, temperature: 0.2, top_k: 40, stop_sequences: ["END"], metadata: { user_id: "u1" } });
  });
});
