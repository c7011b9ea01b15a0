import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson } from "../../../../../test/fixtures/anthropic";
import openAIChunks from "../../../../../test/fixtures/openai/chat-completion-chunks.json";
import { runTransform } from "@tollgate/upstream/stream-test-support";
import { createOpenAIToAnthropicStream, type AnthropicStreamOptions } from "./openai-stream-to-anthropic";

async function translate(chunks: Record<string, unknown>[], options: AnthropicStreamOptions = { model: "claude-sonnet-4-5" }) {
  const parts = chunks.map((chunk) => ({ type: "chunk" as const, chunk }));
  const events = await runTransform(parts, createOpenAIToAnthropicStream(options));
  for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
  return events.map((event) => ({ event: event.event, data: JSON.parse(event.data) }));
}

describe("createOpenAIToAnthropicStream", () => {
  test("produces Anthropic's event sequence for a text stream, with the usage chunk's tokens in message_delta", async () => {
    expect(await translate(openAIChunks)).toMatchInlineSnapshot(`
      [
        {
          "data": {
            "message": {
              "content": [],
              "id": "msg_BzR8Vw1cNq5oYj3EhLk2TgU7fPzMd",
              "model": "claude-sonnet-4-5",
              "role": "assistant",
              "stop_reason": null,
              "stop_sequence": null,
              "type": "message",
              "usage": {
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "input_tokens": 0,
                "output_tokens": 0,
              },
            },
            "type": "message_start",
          },
          "event": "message_start",
        },
        {
          "data": {
            "content_block": {
              "text": "",
              "type": "text",
            },
            "index": 0,
            "type": "content_block_start",
          },
          "event": "content_block_start",
        },
        {
          "data": {
            "delta": {
              "text": "Hello",
              "type": "text_delta",
            },
            "index": 0,
            "type": "content_block_delta",
          },
          "event": "content_block_delta",
        },
        {
          "data": {
            "delta": {
              "text": " there",
              "type": "text_delta",
            },
            "index": 0,
            "type": "content_block_delta",
          },
          "event": "content_block_delta",
        },
        {
          "data": {
            "delta": {
              "text": "!",
              "type": "text_delta",
            },
            "index": 0,
            "type": "content_block_delta",
          },
          "event": "content_block_delta",
        },
        {
          "data": {
            "index": 0,
            "type": "content_block_stop",
          },
          "event": "content_block_stop",
        },
        {
          "data": {
            "delta": {
              "stop_reason": "end_turn",
              "stop_sequence": null,
            },
            "type": "message_delta",
            "usage": {
              "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0,
              "input_tokens": 9,
              "output_tokens": 3,
            },
          },
          "event": "message_delta",
        },
        {
          "data": {
            "type": "message_stop",
          },
          "event": "message_stop",
        },
      ]
    `);
  });

  test("gives each tool call its own tool_use block streamed as input_json_delta", async () => {
    const events = await translate(anthropicFixtureJson<Record<string, unknown>[]>("openai-input/chat-completion-tool-call-chunks.json"));
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      ...Array(7).fill("content_block_delta"),
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const starts = events.filter((event) => event.event === "content_block_start").map((event) => event.data);
    expect(starts).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", input: {} } },
      { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "call_8f3kQm2LwXc9RtVb1nJy6PzA", name: "get_weather", input: {} } },
    ]);
    const inputOf = (index: number) =>
      JSON.parse(
        events
          .filter((event) => event.event === "content_block_delta" && event.data.index === index)
          .map((event) => event.data.delta.partial_json)
          .join(""),
      );
    expect(inputOf(0)).toEqual({ location: "Paris, France" });
    expect(inputOf(1)).toEqual({ location: "Bogotá, Colombia" });
    expect(events.at(-2)?.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 88, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 46 },
    });
  });

  test("starts a new tool_use block when an upstream reuses index 0 with a new call id", async () => {
    const base = { id: "chatcmpl-g1", object: "chat.completion.chunk", created: 1, model: "gemini-2.5-flash" };
    const call = (id: string, location: string) => ({ index: 0, id, type: "function", function: { name: "get_weather", arguments: JSON.stringify({ location }) } });
    const events = await translate([
      { ...base, choices: [{ index: 0, delta: { role: "assistant", tool_calls: [call("call_a", "Paris")] }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { tool_calls: [call("call_b", "Bogotá")] }, finish_reason: "tool_calls" }] },
    ]);
    expect(events.filter((event) => event.event === "content_block_start").map((event) => [event.data.index, event.data.content_block.id])).toEqual([
      [0, "call_a"],
      [1, "call_b"],
    ]);
    expect(events.filter((event) => event.event === "content_block_delta").map((event) => [event.data.index, event.data.delta.partial_json])).toEqual([
      [0, '{"location":"Paris"}'],
      [1, '{"location":"Bogotá"}'],
    ]);
  });

  test("puts the gateway's prompt estimate in message_start when the upstream has not reported usage yet", async () => {
    const events = await translate(openAIChunks, { model: "claude-sonnet-4-5", inputTokens: 7 });
    expect(events[0]?.data.message.usage).toEqual({ input_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 });
  });

  test("streams reasoning as a thinking block before the text, only when asked to", async () => {
    const base = { id: "chatcmpl-r1", object: "chat.completion.chunk", created: 1, model: "deepseek-reasoner" };
    const chunks = [
      { ...base, choices: [{ index: 0, delta: { role: "assistant", content: null, reasoning_content: "Think" }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { reasoning_content: "ing." }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: { content: "Done." }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ];
    const withThinking = await translate(chunks, { model: "m", includeThinking: true });
    expect(withThinking.filter((event) => event.event.startsWith("content_block")).map((event) => event.data)).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Think" } },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "ing." } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Done." } },
      { type: "content_block_stop", index: 1 },
    ]);
    const withoutThinking = await translate(chunks, { model: "m" });
    expect(withoutThinking.filter((event) => event.event === "content_block_start").map((event) => event.data.content_block.type)).toEqual(["text"]);
  });

  test("still opens and closes the message for an empty upstream stream", async () => {
    expect((await translate([])).map((event) => event.event)).toEqual(["message_start", "message_delta", "message_stop"]);
  });

  test("turns an upstream error chunk into an error event and ends there", async () => {
    const events = await translate([
      openAIChunks[0]!,
      { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error" } },
      openAIChunks[1]!,
    ]);
    expect(events.map((event) => event.event)).toEqual(["message_start", "error"]);
    expect(events[1]?.data).toEqual({
      type: "error",
      error: { type: "api_error", message: "The server had an error while processing your request. Sorry about that!" },
    });
  });
});
