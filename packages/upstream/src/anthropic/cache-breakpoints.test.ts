import { describe, expect, test } from "bun:test";
import type { ChatTranslationInput } from "../provider-adapter";
import { buildAnthropicRequest } from "./build-request";
import { translationErrorOf } from "../shared/translation-test-support";

const weather = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } };
const time = { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } };

function upstreamBody(body: Record<string, unknown>, config: Record<string, unknown> = {}): Record<string, any> {
  const input: ChatTranslationInput = {
    channel: { baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-test", config },
    upstreamModel: "claude-sonnet-4-5",
    body: { model: "claude", ...body },
    stream: false,
  };
  return JSON.parse(buildAnthropicRequest(input).body);
}

const part = (text: string, cacheControl?: Record<string, unknown>) => ({ type: "text", text, ...(cacheControl ? { cache_control: cacheControl } : {}) });

describe("cache_control from OpenAI-format requests to Anthropic cache breakpoints", () => {
  test("content parts, tools, and a message's own cache_control become breakpoints, with their ttl", () => {
    const body = upstreamBody({
      messages: [
        { role: "system", content: "Stable instructions.", cache_control: { type: "ephemeral", ttl: "1h" } },
        { role: "user", content: [part("A long document."), part("Question?", { type: "ephemeral" })] },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "Sunny", cache_control: { type: "ephemeral" } },
      ],
      tools: [{ ...weather, cache_control: { type: "ephemeral", ttl: "1h" } }],
    });
    expect(body.system).toEqual([{ type: "text", text: "Stable instructions.", cache_control: { type: "ephemeral", ttl: "1h" } }]);
    expect(body.tools[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(body.messages[0].content).toEqual([{ type: "text", text: "A long document." }, { type: "text", text: "Question?", cache_control: { type: "ephemeral" } }]);
    expect(body.messages[2].content).toEqual([{ type: "tool_result", tool_use_id: "call_1", content: "Sunny", cache_control: { type: "ephemeral" } }]);
  });

  test("keeps only what Anthropic reads of a cache_control, and refuses one it would not accept", () => {
    const body = upstreamBody({ messages: [{ role: "user", content: [part("Hi", { type: "ephemeral", ttl: "5m", extra: "dropped" })] }] });
    expect(body.messages[0].content[0].cache_control).toEqual({ type: "ephemeral", ttl: "5m" });
    const badType = translationErrorOf(() => upstreamBody({ messages: [{ role: "user", content: [part("Hi", { type: "persistent" })] }] }));
    expect(badType.param).toBe("messages[0].content[0].cache_control");
    const badTtl = translationErrorOf(() => upstreamBody({ messages: [{ role: "user", content: "Hi" }], tools: [{ ...weather, cache_control: { type: "ephemeral", ttl: "2h" } }] }));
    expect(badTtl.param).toBe("tools[0].cache_control.ttl");
    expect(badTtl.message).toContain('"5m" or "1h"');
  });

  test("four breakpoints pass; a fifth is refused with a clear message instead of being dropped", () => {
    const marked = (count: number) => Array.from({ length: count }, (_, index) => part(`part ${index}`, { type: "ephemeral" }));
    expect(upstreamBody({ messages: [{ role: "user", content: marked(4) }] }).messages[0].content).toHaveLength(4);
    const error = translationErrorOf(() =>
      upstreamBody({ messages: [{ role: "system", content: marked(2) }, { role: "user", content: marked(2) }], tools: [{ ...weather, cache_control: { type: "ephemeral" } }] }),
    );
    expect(error.message).toBe("The request marks 5 cache_control breakpoints; Anthropic models allow at most 4 per request.");
    expect(error.code).toBe("invalid_value");
  });

  test("a channel with autoCacheBreakpoints marks the last tool and the system prompt for a client that sent none", () => {
    const body = upstreamBody({ messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], tools: [weather, time] }, { autoCacheBreakpoints: true });
    expect(body.tools.map((tool: Record<string, unknown>) => tool.cache_control)).toEqual([undefined, { type: "ephemeral" }]);
    expect(body.system).toEqual([{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]);
    expect(body.messages).toEqual([{ role: "user", content: "Hi" }]);
    // Without the setting, nothing is added.
    const plain = upstreamBody({ messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], tools: [weather] });
    expect(plain.system).toBe("Be brief.");
    expect(plain.tools[0].cache_control).toBeUndefined();
  });

  test("automatic breakpoints never move the client's own and never take the request past four", () => {
    const own = upstreamBody(
      { messages: [{ role: "system", content: [part("One."), part("Two.", { type: "ephemeral", ttl: "1h" }), part("Three.")] }, { role: "user", content: "Hi" }], tools: [weather] },
      { autoCacheBreakpoints: true },
    );
    expect(own.system.map((block: Record<string, unknown>) => block.cache_control)).toEqual([undefined, { type: "ephemeral", ttl: "1h" }, undefined]);
    expect(own.tools[0].cache_control).toEqual({ type: "ephemeral" });
    const full = upstreamBody(
      { messages: [{ role: "system", content: "Be brief." }, { role: "user", content: Array.from({ length: 4 }, (_, index) => part(`p${index}`, { type: "ephemeral" })) }], tools: [weather] },
      { autoCacheBreakpoints: true },
    );
    expect(full.tools[0].cache_control).toBeUndefined();
    expect(full.system).toBe("Be brief.");
  });
});
