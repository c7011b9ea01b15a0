import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { splitParts } from "../shared/stream-test-support";
import { createChatStreamTransformer } from "./stream-transformer";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/azure-openai");
const input: ChatTranslationInput = {
  channel: { baseUrl: "https://tollgate-test.openai.azure.com", apiKey: "test-azure-key", config: {} },
  upstreamModel: "gpt-4o-prod",
  body: { model: "gpt-4o", messages: [{ role: "user", content: "Hi" }], stream: true },
  stream: true,
};

async function run(sseText: string) {
  const parts: ChatStreamPart[] = [];
  const reader = new ReadableStream<string>({
    start(controller) {
      for (let offset = 0; offset < sseText.length; offset += 53) controller.enqueue(sseText.slice(offset, offset + 53));
      controller.close();
    },
  })
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(createChatStreamTransformer(input))
    .getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return splitParts(parts);
}

const fixture = (name: string) => Bun.file(join(fixtures, name)).text();

describe("azure-openai stream transformer", () => {
  test("drops the prompt-filter chunk, filter annotations and [DONE]; renames the model; reports usage", async () => {
    const { chunks, usages } = await run(await fixture("stream-text.sse"));
    expect(chunks.every((chunk) => chunk.model === "gpt-4o" && chunk.id === "chatcmpl-C0a9Vw1cNq5oYj3EhLk2TgU7fPzMd")).toBe(true);
    expect(chunks.map((chunk) => (chunk.choices as Array<{ delta: unknown; finish_reason: unknown }>).map((choice) => [choice.delta, choice.finish_reason])))
      .toMatchInlineSnapshot(`
        [
          [
            [
              {
                "content": "",
                "refusal": null,
                "role": "assistant",
              },
              null,
            ],
          ],
          [
            [
              {
                "content": "Hello",
              },
              null,
            ],
          ],
          [
            [
              {
                "content": " there! How can I",
              },
              null,
            ],
          ],
          [
            [
              {
                "content": " help you today?",
              },
              null,
            ],
          ],
          [
            [
              {},
              "stop",
            ],
          ],
          [],
        ]
      `);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 19, completion_tokens: 9, total_tokens: 28 });
    expect(usages).toEqual([{ promptTokens: 19, completionTokens: 9, cachedTokens: 0 }]);
  });

  test("streamed tool call deltas pass through in order", async () => {
    const { chunks, usages } = await run(await fixture("stream-tool-calls.sse"));
    const deltas = chunks.flatMap((chunk) => (chunk.choices as Array<{ delta: { tool_calls?: Array<{ function: { arguments: string } }> } }>).map((choice) => choice.delta));
    const argumentsText = deltas.flatMap((delta) => delta.tool_calls ?? []).map((call) => call.function.arguments).join("");
    expect(JSON.parse(argumentsText)).toEqual({ location: "Boston, MA", unit: "celsius" });
    expect((chunks.at(-2)!.choices as Array<{ finish_reason: string }>)[0]!.finish_reason).toBe("tool_calls");
    expect(usages).toEqual([{ promptTokens: 84, completionTokens: 22, cachedTokens: 0 }]);
  });

  test("an error event errors the stream, without the key", async () => {
    const text = 'data: {"error":{"message":"The server had an error (key test-azure-key)","type":"server_error","code":null}}\n\n';
    const attempt = run(text);
    await expect(attempt).rejects.toThrow("The server had an error (key ***)");
  });
});
