import { describe, expect, test } from "bun:test";
import type { ChatStreamPart } from "@tollgate/upstream";
import { createChatToResponseEvents, type ResponsesEvent } from "./chat-stream-to-response-events";

const frame = { id: "resp_test", createdAt: 1_700_000_000, model: "m", body: { model: "m", input: "x" }, store: true };

async function run(parts: ChatStreamPart[], estimate = { promptTokens: 1, completionTokens: 1, cachedTokens: 0 }) {
  let final: Record<string, unknown> | null = null;
  const transform = createChatToResponseEvents({ frame, estimate: async () => estimate, onFinal: (response) => (final = response) });
  const events: ResponsesEvent[] = [];
  const source = new ReadableStream<ChatStreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const reader = source.pipeThrough(transform).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    events.push(value);
  }
  return { events, final: final as Record<string, any> | null };
}

const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): ChatStreamPart => ({
  type: "chunk",
  chunk: { id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] },
});

describe("createChatToResponseEvents", () => {
  test("text then two parallel tool calls: the message closes before the calls, each call is its own item", async () => {
    const { events, final } = await run([
      chunk({ role: "assistant", content: "Checking" }),
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "a", arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_b", function: { name: "b", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }),
      chunk({}, "tool_calls"),
      { type: "usage", usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 2 } },
    ]);
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(final!.output.map((item: Record<string, unknown>) => [item.type, item.arguments ?? null])).toEqual([
      ["message", null],
      ["function_call", '{"x":1}'],
      ["function_call", "{}"],
    ]);
    expect(final!.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 2 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    });
  });

  test("a length finish ends with response.incomplete (max_output_tokens), billed from the estimate when no usage came", async () => {
    const { events, final } = await run([chunk({ content: "cut" }), chunk({}, "length")], { promptTokens: 3, completionTokens: 1, cachedTokens: 0 });
    expect(events.at(-1)!.type).toBe("response.incomplete");
    expect(final).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, usage: { input_tokens: 3, output_tokens: 1 } });
  });

  test("an upstream error chunk ends the stream with response.failed and nothing is stored", async () => {
    const { events, final } = await run([chunk({ content: "par" }), { type: "chunk", chunk: { error: { message: "overloaded" } } }]);
    expect(events.at(-1)).toMatchObject({ type: "response.failed", response: { status: "failed", error: { message: "overloaded" } } });
    expect(final).toBeNull();
  });

  test("reasoning text streams as a reasoning item with a summary part, before the message", async () => {
    const { events, final } = await run([chunk({ reasoning_content: "Think" }), chunk({ reasoning_content: "ing." }), chunk({ content: "Answer" }), chunk({}, "stop")]);
    expect(events.map((event) => event.type).slice(2, 9)).toEqual([
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
    ]);
    expect(final!.output[0]).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Thinking." }] });
    expect(final!.output[1]).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Answer" }] });
  });
});
