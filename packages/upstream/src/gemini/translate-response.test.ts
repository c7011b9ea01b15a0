import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ChatTranslationInput } from "../provider-adapter";
import { translateChatResponse } from "./translate-response";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/gemini");
const fixture = (name: string): Promise<unknown> => Bun.file(join(fixtures, name)).json();

const input: ChatTranslationInput = {
  channel: { baseUrl: "https://generativelanguage.googleapis.com", apiKey: "test-gemini-key", config: {} },
  upstreamModel: "gemini-2.5-flash",
  body: { model: "gemini-flash", messages: [{ role: "user", content: "Hi" }] },
  stream: false,
};

async function translate(name: string) {
  const { completion, usage } = translateChatResponse(await fixture(name), input);
  expect(typeof completion.created).toBe("number");
  const { created: _created, ...rest } = completion;
  return { completion: rest, usage };
}

describe("gemini translateChatResponse", () => {
  test("text becomes the message content, named after the public model, with usage", async () => {
    expect(await translate("generate-content-text.json")).toMatchInlineSnapshot(`
      {
        "completion": {
          "choices": [
            {
              "finish_reason": "stop",
              "index": 0,
              "logprobs": null,
              "message": {
                "content": "Hello there! How can I help you today?",
                "refusal": null,
                "role": "assistant",
              },
            },
          ],
          "id": "chatcmpl-mJ2SaJqTKfGc1MkPqN3m8Ak",
          "model": "gemini-flash",
          "object": "chat.completion",
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
        "usage": {
          "cachedTokens": 0,
          "completionTokens": 10,
          "promptTokens": 9,
        },
      }
    `);
  });

  test("functionCall parts become tool_calls with ids, JSON arguments and the thought signature", async () => {
    expect(await translate("generate-content-function-call.json")).toMatchInlineSnapshot(`
      {
        "completion": {
          "choices": [
            {
              "finish_reason": "tool_calls",
              "index": 0,
              "logprobs": null,
              "message": {
                "content": null,
                "refusal": null,
                "role": "assistant",
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
                    "id": "call_Q3-SaMXNA8Gm1MkP3sGZsQw_0",
                    "type": "function",
                  },
                  {
                    "function": {
                      "arguments": "{"location":"Paris, France","unit":"celsius"}",
                      "name": "get_current_weather",
                    },
                    "id": "call_Q3-SaMXNA8Gm1MkP3sGZsQw_1",
                    "type": "function",
                  },
                ],
              },
            },
          ],
          "id": "chatcmpl-Q3-SaMXNA8Gm1MkP3sGZsQw",
          "model": "gemini-flash",
          "object": "chat.completion",
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
        "usage": {
          "cachedTokens": 0,
          "completionTokens": 104,
          "promptTokens": 72,
        },
      }
    `);
  });

  test("thought parts become reasoning_content and thoughts count as completion tokens", async () => {
    const { completion, usage } = await translate("generate-content-thinking.json");
    const choice = (completion.choices as Array<{ message: Record<string, unknown> }>)[0]!;
    expect(choice.message.content).toBe('There are **3** "r"s in the word "strawberry".');
    expect(choice.message.reasoning_content).toStartWith("**Counting the letters**");
    expect(usage).toEqual({ promptTokens: 11, completionTokens: 619, cachedTokens: 0 });
    expect(completion.usage).toMatchObject({ completion_tokens: 619, completion_tokens_details: { reasoning_tokens: 605 } });
  });

  test("cachedContentTokenCount is reported as cached prompt tokens", async () => {
    const { completion, usage } = await translate("generate-content-cached-usage.json");
    expect(usage).toEqual({ promptTokens: 4217, completionTokens: 18, cachedTokens: 4096 });
    expect(completion.usage).toEqual({
      prompt_tokens: 4217,
      completion_tokens: 18,
      total_tokens: 4235,
      prompt_tokens_details: { cached_tokens: 4096 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  test("a prompt blocked before generation is an empty completion finished by content_filter", async () => {
    expect(await translate("generate-content-prompt-blocked.json")).toMatchInlineSnapshot(`
      {
        "completion": {
          "choices": [
            {
              "finish_reason": "content_filter",
              "index": 0,
              "logprobs": null,
              "message": {
                "content": "",
                "refusal": null,
                "role": "assistant",
              },
            },
          ],
          "id": "chatcmpl-wIiSaPOmFtOr1MkP4Y_BgQg",
          "model": "gemini-flash",
          "object": "chat.completion",
          "usage": {
            "completion_tokens": 0,
            "completion_tokens_details": {
              "reasoning_tokens": 0,
            },
            "prompt_tokens": 14,
            "prompt_tokens_details": {
              "cached_tokens": 0,
            },
            "total_tokens": 14,
          },
        },
        "usage": {
          "cachedTokens": 0,
          "completionTokens": 0,
          "promptTokens": 14,
        },
      }
    `);
  });

  test("a candidate stopped by SAFETY finishes with content_filter", async () => {
    const { completion } = await translate("generate-content-safety-stop.json");
    expect(completion.choices).toEqual([
      { index: 0, message: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: "content_filter" },
    ]);
  });

  test("MAX_TOKENS is length, and several candidates are several choices", () => {
    const { completion } = translateChatResponse(
      {
        candidates: [
          { content: { parts: [{ text: "One" }], role: "model" }, finishReason: "MAX_TOKENS", index: 0 },
          { content: { parts: [{ text: "Two" }], role: "model" }, finishReason: "STOP", index: 1 },
        ],
        usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
      },
      input,
    );
    const choices = completion.choices as Array<{ index: number; finish_reason: string }>;
    expect(choices.map((choice) => [choice.index, choice.finish_reason])).toEqual([
      [0, "length"],
      [1, "stop"],
    ]);
    expect(completion.id).toStartWith("chatcmpl-");
  });
});
