import { describe, expect, test } from "bun:test";
import { extractUsage } from "../openai-compatible/extract-usage";
import { openAIUsageOf } from "./openai-usage";

describe("cache classes in OpenAI-shaped usage", () => {
  test("reads OpenAI's cache reads, streamed or not, and the Responses API's input_tokens_details", () => {
    expect(extractUsage({ prompt_tokens: 2006, completion_tokens: 300, total_tokens: 2306, prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 } })).toEqual({
      promptTokens: 2006,
      completionTokens: 300,
      cachedTokens: 1920,
    });
    expect(extractUsage({ input_tokens: 2006, output_tokens: 300, input_tokens_details: { cached_tokens: 1920 } })).toEqual({
      promptTokens: 2006,
      completionTokens: 300,
      cachedTokens: 1920,
    });
  });

  test("reads OpenRouter's cache_write_tokens as 5-minute writes, and the gateway's 1-hour part of them", () => {
    expect(extractUsage({ prompt_tokens: 194, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 100, audio_tokens: 0 } })).toEqual({
      promptTokens: 194,
      completionTokens: 2,
      cachedTokens: 0,
      cacheWriteTokens: 100,
    });
    expect(extractUsage({ prompt_tokens: 194, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 4, cache_write_tokens: 100, cache_write_1h_tokens: 60 } })).toEqual({
      promptTokens: 194,
      completionTokens: 2,
      cachedTokens: 4,
      cacheWriteTokens: 40,
      cacheWrite1hTokens: 60,
    });
    // A 1-hour part larger than the writes is not believed past them.
    expect(extractUsage({ prompt_tokens: 10, completion_tokens: 0, prompt_tokens_details: { cache_write_tokens: 5, cache_write_1h_tokens: 9 } })).toMatchObject({ cacheWrite1hTokens: 5 });
  });

  test("every class survives the trip through OpenAI's usage object and back", () => {
    const usage = { promptTokens: 3500, completionTokens: 50, cachedTokens: 2000, cacheWriteTokens: 400, cacheWrite1hTokens: 100 };
    expect(openAIUsageOf(usage)).toEqual({
      prompt_tokens: 3500,
      completion_tokens: 50,
      total_tokens: 3550,
      prompt_tokens_details: { cached_tokens: 2000, cache_write_tokens: 500, cache_write_1h_tokens: 100 },
    });
    expect(extractUsage(openAIUsageOf(usage))).toEqual(usage);
    expect(openAIUsageOf({ promptTokens: 5, completionTokens: 1, cachedTokens: 0 }).prompt_tokens_details).toEqual({ cached_tokens: 0 });
  });
});
