import { describe, expect, test } from "bun:test";
import type { EventSourceMessage } from "eventsource-parser";
import { anthropicFixtureText } from "../../../../test/fixtures/anthropic";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { createAnthropicStreamTransformer } from "./stream-transformer";
import { parseSseText, runTransform, splitParts, streamOf } from "../shared/stream-test-support";

const input: ChatTranslationInput = {
  channel: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test-key", config: {} },
  upstreamModel: "claude-sonnet-4-5-20250929",
  body: { model: "claude-sonnet", messages: [{ role: "user", content: "Hello" }], stream: true },
  stream: true,
};

async function translate(events: EventSourceMessage[]) {
  const { chunks, usages } = splitParts(await runTransform(events, createAnthropicStreamTransformer(input)));
  for (const chunk of chunks) expect(chunk.created).toBeNumber();
  return { chunks: chunks.map((chunk): Record<string, unknown> => ({ ...chunk, created: 0 })), usages };
}

function deltasOf(chunks: Record<string, unknown>[]): Array<Record<string, unknown>> {
  return chunks.flatMap((chunk) => (chunk.choices as Array<{ delta: Record<string, unknown> }>).map((choice) => choice.delta));
}

describe("createAnthropicStreamTransformer", () => {
  test("turns a text stream into a role chunk, content chunks, a finish chunk and a final usage chunk", async () => {
    const { chunks, usages } = await translate(await parseSseText(anthropicFixtureText("stream-text.sse")));
    expect(chunks).toMatchInlineSnapshot(`
      [
        {
          "choices": [
            {
              "delta": {
                "content": "",
                "role": "assistant",
              },
              "finish_reason": null,
              "index": 0,
              "logprobs": null,
            },
          ],
          "created": 0,
          "id": "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
          "model": "claude-sonnet",
          "object": "chat.completion.chunk",
        },
        {
          "choices": [
            {
              "delta": {
                "content": "Hello",
              },
              "finish_reason": null,
              "index": 0,
              "logprobs": null,
            },
          ],
          "created": 0,
          "id": "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
          "model": "claude-sonnet",
          "object": "chat.completion.chunk",
        },
        {
          "choices": [
            {
              "delta": {
                "content": "!",
              },
              "finish_reason": null,
              "index": 0,
              "logprobs": null,
            },
          ],
          "created": 0,
          "id": "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
          "model": "claude-sonnet",
          "object": "chat.completion.chunk",
        },
        {
          "choices": [
            {
              "delta": {},
              "finish_reason": "stop",
              "index": 0,
              "logprobs": null,
            },
          ],
          "created": 0,
          "id": "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
          "model": "claude-sonnet",
          "object": "chat.completion.chunk",
        },
        {
          "choices": [],
          "created": 0,
          "id": "chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
          "model": "claude-sonnet",
          "object": "chat.completion.chunk",
          "usage": {
            "completion_tokens": 15,
            "prompt_tokens": 25,
            "prompt_tokens_details": {
              "cached_tokens": 0,
            },
            "total_tokens": 40,
          },
        },
      ]
    `);
    expect(usages).toEqual([{ promptTokens: 25, completionTokens: 15, cachedTokens: 0 }]);
  });

  test("streams a tool_use block as OpenAI tool_calls deltas whose arguments add up to the tool input", async () => {
    const { chunks, usages } = await translate(await parseSseText(anthropicFixtureText("stream-tool-use.sse")));
    const deltas = deltasOf(chunks);
    expect(deltas.map((delta) => delta.content ?? "").join("")).toBe("Okay, let's check the weather for San Francisco, CA:");
    const toolDeltas = deltas.flatMap((delta) => (delta.tool_calls as Array<Record<string, any>> | undefined) ?? []);
    expect(toolDeltas[0]).toEqual({ index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", type: "function", function: { name: "get_weather", arguments: "" } });
    expect(toolDeltas.slice(1).every((delta) => delta.index === 0 && Object.keys(delta).join() === "index,function")).toBe(true);
    expect(JSON.parse(toolDeltas.map((delta) => delta.function.arguments).join(""))).toEqual({ location: "San Francisco, CA", unit: "fahrenheit" });
    const finishReasons = chunks.flatMap((chunk) => (chunk.choices as Array<{ finish_reason: string | null }>).map((choice) => choice.finish_reason));
    expect(finishReasons.filter(Boolean)).toEqual(["tool_calls"]);
    expect(chunks.at(-1)).toMatchObject({ id: "chatcmpl-msg_014p7gG3wDgGV9EUtLvnow3U", choices: [], usage: { prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 } });
    expect(usages).toEqual([{ promptTokens: 472, completionTokens: 89, cachedTokens: 0 }]);
  });

  test("streams thinking as reasoning_content and emits no usage when the upstream sent none", async () => {
    const { chunks, usages } = await translate(await parseSseText(anthropicFixtureText("stream-thinking.sse")));
    const deltas = deltasOf(chunks);
    expect(deltas.map((delta) => delta.reasoning_content ?? "").join("")).toBe(
      "Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3\n3. 27 * 400 = 10,800\n4. 27 * 50 = 1,350\n5. 27 * 3 = 81\n6. 10,800 + 1,350 + 81 = 12,231",
    );
    expect(deltas.map((delta) => delta.content ?? "").join("")).toBe("27 * 453 = 12,231");
    expect(chunks.some((chunk) => "usage" in chunk)).toBe(false);
    expect(usages).toEqual([]);
  });

  test("counts cache reads and writes into prompt_tokens and reports cache reads as cached_tokens", async () => {
    const events = await parseSseText(anthropicFixtureText("stream-text.sse"));
    const start = JSON.parse(events[0]!.data);
    start.message.usage = { input_tokens: 25, cache_creation_input_tokens: 300, cache_read_input_tokens: 1200, output_tokens: 1 };
    events[0] = { ...events[0]!, data: JSON.stringify(start) };
    const { chunks, usages } = await translate(events);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 1525,
      completion_tokens: 15,
      total_tokens: 1540,
      prompt_tokens_details: { cached_tokens: 1200, cache_write_tokens: 300 },
    });
    expect(usages).toEqual([{ promptTokens: 1525, completionTokens: 15, cachedTokens: 1200, cacheWriteTokens: 300 }]);
  });

  test("splits cache writes by lifetime from message_start's cache_creation, kept when message_delta restates only the totals", async () => {
    const events = await parseSseText(anthropicFixtureText("stream-text.sse"));
    const start = JSON.parse(events[0]!.data);
    start.message.usage = {
      input_tokens: 25,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 1200,
      cache_creation: { ephemeral_5m_input_tokens: 200, ephemeral_1h_input_tokens: 300 },
      output_tokens: 1,
    };
    events[0] = { ...events[0]!, data: JSON.stringify(start) };
    const deltaIndex = events.findIndex((event) => JSON.parse(event.data).type === "message_delta");
    const delta = JSON.parse(events[deltaIndex]!.data);
    delta.usage = { input_tokens: 25, cache_creation_input_tokens: 500, cache_read_input_tokens: 1200, output_tokens: 15 };
    events[deltaIndex] = { ...events[deltaIndex]!, data: JSON.stringify(delta) };
    const { chunks, usages } = await translate(events);
    expect(usages).toEqual([{ promptTokens: 1725, completionTokens: 15, cachedTokens: 1200, cacheWriteTokens: 200, cacheWrite1hTokens: 300 }]);
    expect(chunks.at(-1)?.usage).toEqual({
      prompt_tokens: 1725,
      completion_tokens: 15,
      total_tokens: 1740,
      prompt_tokens_details: { cached_tokens: 1200, cache_write_tokens: 500, cache_write_1h_tokens: 300 },
    });
  });

  test("fails the stream with the upstream's message on an error event", async () => {
    const events = await parseSseText(anthropicFixtureText("stream-error.sse"));
    const parts: ChatStreamPart[] = [];
    const reader = streamOf(events).pipeThrough(createAnthropicStreamTransformer(input)).getReader();
    const failure = (async () => {
      for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
    })();
    await expect(failure).rejects.toThrow("The Anthropic upstream failed mid-stream (overloaded_error): Overloaded");
    const { chunks: emitted, usages } = splitParts(parts);
    expect(deltasOf(emitted)).toEqual([{ role: "assistant", content: "" }, { content: "Hello" }]);
    expect(usages).toEqual([]);
  });
});
