import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson } from "../../../../test/fixtures/anthropic";
import type { ChatTranslationInput } from "../provider-adapter";
import { translateAnthropicResponse } from "./translate-response";

const input: ChatTranslationInput = {
  channel: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config: {} },
  upstreamModel: "claude-sonnet-4-5-20250929",
  body: { model: "claude-sonnet", messages: [{ role: "user", content: "Hello" }] },
  stream: false,
};

function translate(fixture: string) {
  const { completion, usage } = translateAnthropicResponse(anthropicFixtureJson(fixture), input);
  expect(completion.created).toBeNumber();
  const withFixedClock: Record<string, unknown> = { ...completion, created: 0 };
  return { completion: withFixedClock, usage };
}

describe("translateAnthropicResponse", () => {
  test("turns a text message into a chat.completion for the public model, counting cache reads and writes as prompt", () => {
    const { completion, usage } = translate("message-text.json");
    expect(completion).toMatchInlineSnapshot(`
      {
        "choices": [
          {
            "finish_reason": "stop",
            "index": 0,
            "logprobs": null,
            "message": {
              "content": "Hi! My name is Claude.",
              "role": "assistant",
            },
          },
        ],
        "created": 0,
        "id": "chatcmpl-msg_013Zva2CMHLNnXjNJJKqJ2EF",
        "model": "claude-sonnet",
        "object": "chat.completion",
        "usage": {
          "completion_tokens": 503,
          "prompt_tokens": 6197,
          "prompt_tokens_details": {
            "cache_write_tokens": 2051,
            "cached_tokens": 2051,
          },
          "total_tokens": 6700,
        },
      }
    `);
    // The recorded answer carries a write total with a split of zeros: the total counts, as 5-minute writes.
    expect(usage).toEqual({ promptTokens: 2095 + 2051 + 2051, completionTokens: 503, cachedTokens: 2051, cacheWriteTokens: 2051 });
  });

  test("turns tool_use blocks into tool_calls with JSON-text arguments and finish_reason tool_calls", () => {
    const { completion, usage } = translate("message-tool-use.json");
    expect(completion.choices).toMatchInlineSnapshot(`
      [
        {
          "finish_reason": "tool_calls",
          "index": 0,
          "logprobs": null,
          "message": {
            "content": "I'll check the current weather in San Francisco for you.",
            "role": "assistant",
            "tool_calls": [
              {
                "function": {
                  "arguments": "{"location":"San Francisco, CA","unit":"celsius"}",
                  "name": "get_weather",
                },
                "id": "toolu_01A09q90qw90lq917835lq9",
                "type": "function",
              },
            ],
          },
        },
      ]
    `);
    expect(usage).toEqual({ promptTokens: 472, completionTokens: 89, cachedTokens: 0 });
  });

  test("exposes thinking blocks as reasoning_content beside the text", () => {
    const { completion } = translate("message-thinking.json");
    const [choice] = completion.choices as Array<{ message: Record<string, unknown> }>;
    expect(choice?.message).toEqual({ role: "assistant", content: "Based on my analysis...", reasoning_content: "Let me analyze this step by step..." });
  });

  test("maps every stop_reason to OpenAI's finish_reason", () => {
    const body = anthropicFixtureJson("message-text.json");
    const finishReasonOf = (stopReason: string) =>
      (translateAnthropicResponse({ ...body, stop_reason: stopReason }, input).completion.choices as Array<{ finish_reason: string }>)[0]?.finish_reason;
    expect(
      ["end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal", "pause_turn", "model_context_window_exceeded"].map(finishReasonOf),
    ).toEqual(["stop", "stop", "length", "tool_calls", "content_filter", "stop", "length"]);
  });

  test("refuses a body that is not a message", () => {
    expect(() => translateAnthropicResponse({ type: "error", error: { type: "api_error", message: "x" } }, input)).toThrow("not a message");
  });
});
