import { promptClasses, type TokenUsage } from "@tollgate/shared";
import { extractUsage } from "@tollgate/upstream";

export interface AnthropicUsageFields {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** The cache writes by lifetime, as Anthropic reports them; present when the upstream reported writes. */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
}

/**
 * TokenUsage -> Anthropic's usage fields. Anthropic's input_tokens excludes the prompt cache's reads and
 * writes, so they move to cache_read_input_tokens and cache_creation_input_tokens (split by lifetime in
 * cache_creation), as a client reading Anthropic's own usage expects.
 */
export function anthropicUsageOf(usage: TokenUsage): AnthropicUsageFields {
  const classes = promptClasses(usage);
  const written = classes.cacheWrite + classes.cacheWrite1h;
  const fields: AnthropicUsageFields = {
    input_tokens: classes.uncached,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: classes.cacheRead,
    output_tokens: usage.completionTokens,
  };
  if (written > 0) fields.cache_creation = { ephemeral_5m_input_tokens: classes.cacheWrite, ephemeral_1h_input_tokens: classes.cacheWrite1h };
  return fields;
}

/** An OpenAI `usage` object (any vendor's variant) -> Anthropic's usage fields; null when there is none. */
export function anthropicUsageFromOpenAI(usage: unknown): AnthropicUsageFields | null {
  const extracted = extractUsage(usage);
  return extracted ? anthropicUsageOf(extracted) : null;
}
