import { describe, expect, test } from "bun:test";
import { adapterFor } from "@tollgate/upstream";
import { loadTokenizer } from "./count-tokens";
import {
  countPromptForReservation,
  fittedPromptTokens,
  IMAGE_TOKENS,
  LOW_DETAIL_IMAGE_TOKENS,
  promptUpperBound,
  TOKENIZER_MARGINS,
  TOKENS_PER_MESSAGE,
  TOKENS_PER_REPLY,
  tokenizerFamily,
} from "./estimate-prompt-tokens";

const count = await loadTokenizer();
const bytesOf = (body: unknown) => new TextEncoder().encode(JSON.stringify(body)).byteLength;

describe("estimate-prompt-tokens", () => {
  test("a chat prompt counts its text, roles and the chat format's overhead, not the JSON around them", () => {
    const body = { model: "gpt-4o", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello world" }] };
    const expected = TOKENS_PER_REPLY + 2 * TOKENS_PER_MESSAGE + count("system") + count("Be brief.") + count("user") + count("hello world");
    expect(countPromptForReservation(body, count)).toBe(expected);
    expect(expected).toBeLessThan(bytesOf(body) / 3);
  });

  test("tools' schemas, tool calls and an Anthropic system prompt are counted", () => {
    const tools = [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const bare = { messages: [{ role: "user", content: "hi" }] };
    expect(countPromptForReservation({ ...bare, tools }, count)).toBe(countPromptForReservation(bare, count) + count(JSON.stringify(tools)));
    const withSystem = { ...bare, system: [{ type: "text", text: "You are terse." }] };
    expect(countPromptForReservation(withSystem, count)).toBe(countPromptForReservation(bare, count) + TOKENS_PER_MESSAGE + count("You are terse."));
    const toolCalls = [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }];
    const withCall = { messages: [...bare.messages, { role: "assistant", content: null, tool_calls: toolCalls }] };
    expect(countPromptForReservation(withCall, count)).toBe(
      countPromptForReservation(bare, count) + TOKENS_PER_MESSAGE + count("assistant") + count(JSON.stringify(toolCalls)),
    );
  });

  test("images count at their documented maximum, or 85 at OpenAI's low detail, in OpenAI's and Anthropic's shapes", () => {
    const parts = [
      { type: "image_url", image_url: { url: "https://example.com/a.png" } },
      { type: "image_url", image_url: { url: "https://example.com/b.png", detail: "low" } },
      { type: "image", source: { type: "url", url: "https://example.com/c.png" } },
    ];
    const body = { messages: [{ role: "user", content: parts }] };
    const textOnly = { messages: [{ role: "user", content: [] }] };
    expect(countPromptForReservation(body, count) - countPromptForReservation(textOnly, count)).toBe(2 * IMAGE_TOKENS + LOW_DETAIL_IMAGE_TOKENS);
    // Images by URL are not in the body's bytes: the cheap bound adds them at their maximum.
    expect(promptUpperBound(body, bytesOf(body))).toBe(bytesOf(body) + 3 * IMAGE_TOKENS);
  });

  test("a completion's prompt and an embedding's input count strings and token arrays", () => {
    expect(countPromptForReservation({ prompt: "once upon a time" }, count)).toBe(count("once upon a time"));
    expect(countPromptForReservation({ input: ["alpha beta", [1, 2, 3]] }, count)).toBe(count("alpha beta") + 3);
    expect(countPromptForReservation({ input: [5, 6, 7, 8] }, count)).toBe(4);
  });

  test("the fitted estimate adds the family's margin and never exceeds the cheap bound", () => {
    const body = { messages: [{ role: "user", content: "The quick brown fox jumps over the lazy dog." }] };
    const raw = countPromptForReservation(body, count);
    const bound = promptUpperBound(body, bytesOf(body));
    expect(fittedPromptTokens(body, count, "openai", bound)).toBe(Math.ceil(raw * (1 + TOKENIZER_MARGINS.openai)));
    expect(fittedPromptTokens(body, count, "anthropic", bound)).toBe(Math.ceil(raw * (1 + TOKENIZER_MARGINS.anthropic)));
    expect(fittedPromptTokens(body, count, "anthropic", raw)).toBe(raw);
  });

  test("a model's tokenizer family comes from its upstream name first, then from the channel's type", () => {
    expect(tokenizerFamily("gpt-4o-mini", adapterFor("openai-compatible"))).toBe("openai");
    expect(tokenizerFamily("openai/o3-mini", adapterFor("openai-compatible"))).toBe("openai");
    expect(tokenizerFamily("anthropic/claude-sonnet-4", adapterFor("openai-compatible"))).toBe("anthropic");
    expect(tokenizerFamily("gemini-2.5-flash", adapterFor("openai-compatible"))).toBe("gemini");
    expect(tokenizerFamily("my-deployment", adapterFor("azure-openai"))).toBe("openai");
    expect(tokenizerFamily("sonnet-latest", adapterFor("anthropic"))).toBe("anthropic");
    expect(tokenizerFamily("qwen2.5-72b-instruct", adapterFor("openai-compatible"))).toBe("other");
  });
});
