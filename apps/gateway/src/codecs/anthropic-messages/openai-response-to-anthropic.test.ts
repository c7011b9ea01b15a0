import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson } from "../../../../../test/fixtures/anthropic";
import openAICompletion from "../../../../../test/fixtures/openai/chat-completion.json";
import { openAIResponseToAnthropic } from "./openai-response-to-anthropic";

describe("openAIResponseToAnthropic", () => {
  test("turns a text completion into an Anthropic message for the public model", () => {
    expect(openAIResponseToAnthropic(openAICompletion, { model: "claude-sonnet-4-5" })).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "Hello there! How can I help you today?",
            "type": "text",
          },
        ],
        "id": "msg_BzR7kq2GfJ0pX9cT4mWnLhD3sVaEu",
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "stop_reason": "end_turn",
        "stop_sequence": null,
        "type": "message",
        "usage": {
          "cache_creation_input_tokens": 0,
          "cache_read_input_tokens": 0,
          "input_tokens": 19,
          "output_tokens": 10,
        },
      }
    `);
  });

  test("turns tool_calls into tool_use blocks with parsed input, and moves cached tokens to cache_read_input_tokens", () => {
    expect(openAIResponseToAnthropic(anthropicFixtureJson("openai-input/chat-completion-tool-calls.json"), { model: "claude-sonnet-4-5" })).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "id": "call_abc123",
            "input": {
              "location": "Boston, MA",
            },
            "name": "get_current_weather",
            "type": "tool_use",
          },
        ],
        "id": "msg_abc123",
        "model": "claude-sonnet-4-5",
        "role": "assistant",
        "stop_reason": "tool_use",
        "stop_sequence": null,
        "type": "message",
        "usage": {
          "cache_creation_input_tokens": 0,
          "cache_read_input_tokens": 64,
          "input_tokens": 18,
          "output_tokens": 17,
        },
      }
    `);
  });

  test("maps finish reasons to stop reasons", () => {
    const stopReasonOf = (finish_reason: string) =>
      openAIResponseToAnthropic({ ...openAICompletion, choices: [{ ...openAICompletion.choices[0], finish_reason }] }, { model: "m" }).stop_reason;
    expect(["stop", "length", "tool_calls", "content_filter"].map(stopReasonOf)).toEqual(["end_turn", "max_tokens", "tool_use", "refusal"]);
  });

  test("exposes reasoning_content as a thinking block only when asked to", () => {
    const withReasoning = {
      ...openAICompletion,
      choices: [{ index: 0, message: { role: "assistant", content: "21", reasoning_content: "1071 = 2 × 462 + 147…" }, finish_reason: "stop" }],
    };
    expect(openAIResponseToAnthropic(withReasoning, { model: "m" }).content).toEqual([{ type: "text", text: "21" }]);
    expect(openAIResponseToAnthropic(withReasoning, { model: "m", includeThinking: true }).content).toEqual([
      { type: "thinking", thinking: "1071 = 2 × 462 + 147…", signature: "" },
      { type: "text", text: "21" },
    ]);
  });

  test("keeps an id that is already an Anthropic message id", () => {
    expect(openAIResponseToAnthropic({ ...openAICompletion, id: "chatcmpl-msg_013Zva2CMHLNnXjNJJKqJ2EF" }, { model: "m" }).id).toBe(
      "msg_013Zva2CMHLNnXjNJJKqJ2EF",
    );
  });
});
