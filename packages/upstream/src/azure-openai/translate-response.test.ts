import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ChatTranslationInput } from "../provider-adapter";
import { translateChatResponse } from "./translate-response";

const fixtures = join(import.meta.dir, "../../../../test/fixtures/azure-openai");
const input: ChatTranslationInput = {
  channel: { baseUrl: "https://tollgate-test.openai.azure.com", apiKey: "test-azure-key", config: {} },
  upstreamModel: "gpt-4o-prod",
  body: { model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] },
  stream: false,
};

describe("azure-openai translateChatResponse", () => {
  test("the completion passes through under the public model, with usage and cached tokens", async () => {
    const upstream = (await Bun.file(join(fixtures, "chat-completion.json")).json()) as Record<string, unknown>;
    const { completion, usage } = translateChatResponse(upstream, input);
    expect(completion).toEqual({ ...upstream, model: "gpt-4o" });
    expect(usage).toEqual({ promptTokens: 1843, completionTokens: 10, cachedTokens: 1664 });
  });

  test("tool calls come back as Azure sent them", async () => {
    const upstream = await Bun.file(join(fixtures, "chat-completion-tool-calls.json")).json();
    const { completion, usage } = translateChatResponse(upstream, input);
    const choice = (completion.choices as Array<{ finish_reason: string; message: { tool_calls: unknown[] } }>)[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toMatchInlineSnapshot(`
      [
        {
          "function": {
            "arguments": "{"location":"Boston, MA","unit":"celsius"}",
            "name": "get_current_weather",
          },
          "id": "call_Xq2pV8cN4mT7sLk1RbD9eZwA",
          "type": "function",
        },
      ]
    `);
    expect(usage).toEqual({ promptTokens: 84, completionTokens: 22, cachedTokens: 0 });
  });
});
