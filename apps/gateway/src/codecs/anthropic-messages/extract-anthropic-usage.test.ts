import { describe, expect, test } from "bun:test";
import { anthropicFixtureJson, anthropicFixtureText } from "../../../../../test/fixtures/anthropic";
import { parseSseText } from "@tollgate/upstream/stream-test-support";
import { createAnthropicUsageTap, extractAnthropicUsage } from "./extract-anthropic-usage";

async function tapFixture(name: string) {
  const tap = createAnthropicUsageTap();
  for (const event of await parseSseText(anthropicFixtureText(name))) tap.observe(event.data);
  return tap.usage;
}

describe("extractAnthropicUsage", () => {
  test("reads a message body's usage, counting cache reads and writes as prompt tokens", () => {
    expect(extractAnthropicUsage(anthropicFixtureJson("message-text.json"))).toEqual({ promptTokens: 6197, completionTokens: 503, cachedTokens: 2051, cacheWriteTokens: 2051 });
    expect(extractAnthropicUsage(anthropicFixtureJson("errors/500-api-error.json"))).toBeNull();
  });
});

describe("createAnthropicUsageTap", () => {
  test("combines message_start's input tokens with message_delta's cumulative output tokens", async () => {
    expect(await tapFixture("stream-text.sse")).toEqual({ promptTokens: 25, completionTokens: 15, cachedTokens: 0 });
    expect(await tapFixture("stream-tool-use.sse")).toEqual({ promptTokens: 472, completionTokens: 89, cachedTokens: 0 });
  });

  test("is null while no event has carried usage", async () => {
    expect(createAnthropicUsageTap().usage).toBeNull();
    expect(await tapFixture("stream-thinking.sse")).toBeNull();
  });

  test("takes cache tokens from message_start and lets a later message_delta restate them", () => {
    const tap = createAnthropicUsageTap();
    tap.observe({
      type: "message_start",
      message: { id: "msg_1", usage: { input_tokens: 25, cache_creation_input_tokens: 300, cache_read_input_tokens: 0, output_tokens: 1 } },
    });
    tap.observe({ type: "ping" });
    tap.observe({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } });
    expect(tap.usage).toEqual({ promptTokens: 325, completionTokens: 9, cachedTokens: 0, cacheWriteTokens: 300 });
    tap.observe({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { input_tokens: 25, cache_read_input_tokens: 300, cache_creation_input_tokens: 0, output_tokens: 12 } });
    expect(tap.usage).toEqual({ promptTokens: 325, completionTokens: 12, cachedTokens: 300 });
    tap.observe("not json");
  });

  test("reads cache writes by lifetime from cache_creation, in message_start and in a message_delta", () => {
    const tap = createAnthropicUsageTap();
    tap.observe({
      type: "message_start",
      message: { usage: { input_tokens: 10, cache_creation_input_tokens: 700, cache_creation: { ephemeral_5m_input_tokens: 300, ephemeral_1h_input_tokens: 400 }, output_tokens: 1 } },
    });
    expect(tap.usage).toEqual({ promptTokens: 710, completionTokens: 1, cachedTokens: 0, cacheWriteTokens: 300, cacheWrite1hTokens: 400 });
    tap.observe(
      JSON.stringify({
        type: "message_delta",
        usage: { input_tokens: 10, cache_creation_input_tokens: 700, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 700 }, output_tokens: 5 },
      }),
    );
    expect(tap.usage).toEqual({ promptTokens: 710, completionTokens: 5, cachedTokens: 0, cacheWrite1hTokens: 700 });
  });
});
