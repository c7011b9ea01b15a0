import type { TokenUsage } from "@tollgate/shared";
import { extractUsage } from "@tollgate/upstream";

export interface AnthropicUsageFields {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/**
 * TokenUsage -> Anthropic's usage fields. Anthropic's input_tokens excludes cache reads, so the cached part of
 * the prompt moves to cache_read_input_tokens; OpenAI-style upstreams report no cache writes.
 */
export function anthropicUsageOf(usage: TokenUsage): AnthropicUsageFields {
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  return {
    input_tokens: usage.promptTokens - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: usage.completionTokens,
  };
}

/** An OpenAI `usage` object (any vendor's variant) -> Anthropic's usage fields; null when there is none. */
export function anthropicUsageFromOpenAI(usage: unknown): AnthropicUsageFields | null {
  const extracted = extractUsage(usage);
  return extracted ? anthropicUsageOf(extracted) : null;
}
