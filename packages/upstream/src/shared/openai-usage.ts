import { isRecord, type TokenUsage } from "@tollgate/shared";
import { tokenCount } from "./token-count";

/** The usage with its cache writes set, each only when there are some (absent means 0). */
export function withCacheWrites(usage: TokenUsage, write5m: number, write1h: number): TokenUsage {
  const result: TokenUsage = { ...usage };
  if (write5m > 0) result.cacheWriteTokens = write5m;
  if (write1h > 0) result.cacheWrite1hTokens = write1h;
  return result;
}

/**
 * Cache writes in an OpenAI-shaped usage's token details. `cache_write_tokens` (every write, whatever its
 * lifetime) is OpenRouter's field; `cache_write_1h_tokens` (the 1-hour part of it) is the gateway's own, so
 * that a translated answer keeps both lifetimes on its way to the client and back to accounting.
 */
export function cacheWritesFromDetails(details: unknown): { write5m: number; write1h: number } {
  if (!isRecord(details)) return { write5m: 0, write1h: 0 };
  const total = tokenCount(details.cache_write_tokens);
  const write1h = Math.min(tokenCount(details.cache_write_1h_tokens), total);
  return { write5m: total - write1h, write1h };
}

/** The token details of an OpenAI usage object for this usage: cache reads, and cache writes when there are some. */
export function promptTokensDetailsOf(usage: TokenUsage): Record<string, number> {
  const details: Record<string, number> = { cached_tokens: usage.cachedTokens };
  const write5m = usage.cacheWriteTokens ?? 0;
  const write1h = usage.cacheWrite1hTokens ?? 0;
  if (write5m + write1h > 0) details.cache_write_tokens = write5m + write1h;
  if (write1h > 0) details.cache_write_1h_tokens = write1h;
  return details;
}

/** TokenUsage in the shape of OpenAI's `usage` object (chat completions). */
export function openAIUsageOf(usage: TokenUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: promptTokensDetailsOf(usage),
  };
}
