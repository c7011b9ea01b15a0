import { describe, expect, test } from "bun:test";
import { anthropicUsageFromOpenAI, anthropicUsageOf } from "./map-openai-usage";

describe("usage for an Anthropic client of a translated channel", () => {
  test("moves cache reads and writes out of input_tokens, with the writes split by lifetime", () => {
    expect(anthropicUsageOf({ promptTokens: 3500, completionTokens: 50, cachedTokens: 2000, cacheWriteTokens: 400, cacheWrite1hTokens: 100 })).toEqual({
      input_tokens: 1000,
      cache_creation_input_tokens: 500,
      cache_read_input_tokens: 2000,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 100 },
      output_tokens: 50,
    });
  });

  test("an OpenAI usage with cache reads only becomes reads, with no cache_creation", () => {
    expect(anthropicUsageFromOpenAI({ prompt_tokens: 2006, completion_tokens: 300, prompt_tokens_details: { cached_tokens: 1920 } })).toEqual({
      input_tokens: 86,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1920,
      output_tokens: 300,
    });
  });
});
