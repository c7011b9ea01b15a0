import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { splitParts } from "../shared/stream-test-support";
import { createChatStreamTransformer } from "./stream-transformer";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/gemini");

const input: ChatTranslationInput = {
  channel: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "test-gemini-key", config: {} },
  upstreamModel: "gemini-2.5-flash",
  body: { model: "gemini-flash", messages: [{ role: "user", content: "Hi" }], stream: true },
  stream: true,
};

/** The fixture's SSE text, cut into small pieces as a network would, parsed and translated. */
async function run(name: string) {
  const text = await Bun.file(join(fixtures, name)).text();
  const pieces: string[] = [];
  for (let offset = 0; offset < text.length; offset += 37) pieces.push(text.slice(offset, offset + 37));
  const parts: ChatStreamPart[] = [];
  const readable = new ReadableStream<string>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  })
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(createChatStreamTransformer(input));
  const reader = readable.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return splitParts(parts);
}

/** What the client sees of each chunk, without the envelope fields that repeat. */
function bodies(chunks: Record<string, unknown>[]) {
  return chunks.map((chunk) => (chunk.usage ? { choices: chunk.choices, usage: chunk.usage } : chunk.choices));
}

describe("gemini stream transformer", () => {
  test("text: a role chunk, content deltas, the finish chunk, then the usage chunk", async () => {
    const { chunks, usages } = await run("stream-text.sse");
    const first = chunks[0]!;
    expect(first.id).toBe("chatcmpl-Vo6SaLjDNcKv1MkPmqiBgAs");
    expect(first.object).toBe("chat.completion.chunk");
    expect(first.model).toBe("gemini-flash");
    expect(chunks.every((chunk) => chunk.id === first.id && chunk.created === first.created)).toBe(true);
    expect(bodies(chunks)).toMatchInlineSnapshot(`
      [
        [
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
        [
          {
            "delta": {
              "content": "Hello",
            },
            "finish_reason": null,
            "index": 0,
            "logprobs": null,
          },
        ],
        [
          {
            "delta": {
              "content": " there! How can I",
            },
            "finish_reason": null,
            "index": 0,
            "logprobs": null,
          },
        ],
        [
          {
            "delta": {
              "content": " help you today?",
            },
            "finish_reason": null,
            "index": 0,
            "logprobs": null,
          },
        ],
        [
          {
            "delta": {},
            "finish_reason": "stop",
            "index": 0,
            "logprobs": null,
          },
        ],
        {
          "choices": [],
          "usage": {
            "completion_tokens": 10,
            "completion_tokens_details": {
              "reasoning_tokens": 0,
            },
            "prompt_tokens": 9,
            "prompt_tokens_details": {
              "cached_tokens": 0,
            },
            "total_tokens": 19,
          },
        },
      ]
    `);
    expect(usages).toEqual([{ promptTokens: 9, completionTokens: 10, cachedTokens: 0 }]);
  });

  test("function calls: each is one complete tool_calls delta, and the stream finishes with tool_calls", async () => {
    const { chunks, usages } = await run("stream-function-call.sse");
    expect(bodies(chunks)).toMatchInlineSnapshot(`
      [
        [
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
        [
          {
            "delta": {
              "tool_calls": [
                {
                  "extra_content": {
                    "google": {
                      "thought_signature": "CiQB0e2Kb3N0Zm9yLWEtZml4dHVyZS1vbmx5LW5vdC1hLXJlYWwtb25l",
                    },
                  },
                  "function": {
                    "arguments": "{"location":"Boston, MA","unit":"celsius"}",
                    "name": "get_current_weather",
                  },
                  "id": "call_k5CSaL2oIcm-1MkPsuL4iAw_0",
                  "index": 0,
                  "type": "function",
                },
              ],
            },
            "finish_reason": null,
            "index": 0,
            "logprobs": null,
          },
        ],
        [
          {
            "delta": {
              "tool_calls": [
                {
                  "function": {
                    "arguments": "{"location":"Paris, France","unit":"celsius"}",
                    "name": "get_current_weather",
                  },
                  "id": "call_k5CSaL2oIcm-1MkPsuL4iAw_1",
                  "index": 1,
                  "type": "function",
                },
              ],
            },
            "finish_reason": null,
            "index": 0,
            "logprobs": null,
          },
        ],
        [
          {
            "delta": {},
            "finish_reason": "tool_calls",
            "index": 0,
            "logprobs": null,
          },
        ],
        {
          "choices": [],
          "usage": {
            "completion_tokens": 104,
            "completion_tokens_details": {
              "reasoning_tokens": 70,
            },
            "prompt_tokens": 72,
            "prompt_tokens_details": {
              "cached_tokens": 0,
            },
            "total_tokens": 176,
          },
        },
      ]
    `);
    expect(usages).toEqual([{ promptTokens: 72, completionTokens: 104, cachedTokens: 0 }]);
  });

  test("thinking: thought parts stream as reasoning_content before the content", async () => {
    const { chunks, usages } = await run("stream-thinking.sse");
    const deltas = chunks.flatMap((chunk) => (chunk.choices as Array<{ delta: Record<string, unknown> }>).map((choice) => choice.delta));
    expect(deltas.map((delta) => Object.keys(delta).join(","))).toEqual([
      "role,content",
      "reasoning_content",
      "reasoning_content",
      "content",
      "content",
      "",
    ]);
    expect(usages).toEqual([{ promptTokens: 11, completionTokens: 619, cachedTokens: 0 }]);
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens_details: { reasoning_tokens: 605 } });
  });

  test("a blocked prompt: a role chunk and a content_filter finish, usage still reported", async () => {
    const { chunks, usages } = await run("stream-prompt-blocked.sse");
    expect(bodies(chunks)).toMatchInlineSnapshot(`
      [
        [
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
        [
          {
            "delta": {},
            "finish_reason": "content_filter",
            "index": 0,
            "logprobs": null,
          },
        ],
        {
          "choices": [],
          "usage": {
            "completion_tokens": 0,
            "completion_tokens_details": {
              "reasoning_tokens": 0,
            },
            "prompt_tokens": 9,
            "prompt_tokens_details": {
              "cached_tokens": 0,
            },
            "total_tokens": 9,
          },
        },
      ]
    `);
    expect(usages).toEqual([{ promptTokens: 9, completionTokens: 0, cachedTokens: 0 }]);
  });

  test("an error event mid-stream errors the stream instead of ending it as if complete", async () => {
    await expect(run("stream-error.sse")).rejects.toThrow("The model is overloaded");
  });
});
