import { describe, expect, test } from "bun:test";
import { chatCompletionToResponse } from "./response-object";

const frame = { id: "resp_1", createdAt: 1_700_000_000, model: "public-model", body: { model: "public-model", input: "x", metadata: { k: "v" } }, store: true };
const usage = { promptTokens: 10, completionTokens: 4, cachedTokens: 0 };

describe("chatCompletionToResponse", () => {
  test("reasoning, text and tool calls become reasoning, message and function_call items", () => {
    const response = chatCompletionToResponse(
      {
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: { role: "assistant", content: "Calling.", reasoning_content: "Need data.", tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 4, completion_tokens_details: { reasoning_tokens: 2 } },
      },
      frame,
      usage,
    );
    expect(response).toMatchObject({ id: "resp_1", object: "response", status: "completed", model: "public-model", metadata: { k: "v" }, store: true });
    const output = response.output as Array<Record<string, unknown>>;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(output[2]).toMatchObject({ call_id: "call_1", name: "f", arguments: '{"a":1}', status: "completed" });
    expect(response.usage).toMatchObject({ total_tokens: 14, output_tokens_details: { reasoning_tokens: 2 } });
  });

  test("a content-filter stop is an incomplete response", () => {
    const response = chatCompletionToResponse({ choices: [{ index: 0, finish_reason: "content_filter", message: { role: "assistant", content: "" } }] }, frame, usage);
    expect(response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" }, output: [] });
  });
});
