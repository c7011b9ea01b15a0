import type { TokenUsage } from "@tollgate/shared";
import { tokenCount } from "../shared/token-count";

/**
 * Anthropic's usage object -> TokenUsage. Anthropic's `input_tokens` leaves out the prompt tokens read from
 * or written to the prompt cache, so the prompt is the sum of all three; only the cache reads are "cached"
 * (cache writes are billed at full price or more).
 */
export function tokenUsageFromAnthropic(usage: unknown): TokenUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const record = usage as Record<string, unknown>;
  if (typeof record.input_tokens !== "number" && typeof record.output_tokens !== "number") return null;
  const cachedTokens = tokenCount(record.cache_read_input_tokens);
  return {
    promptTokens: tokenCount(record.input_tokens) + cachedTokens + tokenCount(record.cache_creation_input_tokens),
    completionTokens: tokenCount(record.output_tokens),
    cachedTokens,
  };
}

/** TokenUsage in the shape of OpenAI's `usage` object. */
export function openAIUsageOf(usage: TokenUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
  };
}
