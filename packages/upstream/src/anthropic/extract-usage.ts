import { isRecord, type TokenUsage } from "@tollgate/shared";
import { openAIUsageOf, withCacheWrites } from "../shared/openai-usage";
import { tokenCount } from "../shared/token-count";

export { openAIUsageOf };

/**
 * Anthropic's cache writes by lifetime: `cache_creation` splits them (ephemeral_5m_input_tokens,
 * ephemeral_1h_input_tokens); an API version or vendor without that object reports only the total
 * `cache_creation_input_tokens`, taken as 5-minute writes (the default lifetime). When the two disagree
 * (answers have carried a total with a split of zeros), the larger total wins and what the split leaves
 * unexplained counts as 5-minute writes: the prompt is never counted short.
 */
export function anthropicCacheWrites(usage: Record<string, unknown>): { write5m: number; write1h: number } {
  const creation = isRecord(usage.cache_creation) ? usage.cache_creation : {};
  const split1h = tokenCount(creation.ephemeral_1h_input_tokens);
  const total = Math.max(tokenCount(usage.cache_creation_input_tokens), tokenCount(creation.ephemeral_5m_input_tokens) + split1h);
  return { write5m: total - split1h, write1h: split1h };
}

/**
 * Anthropic's usage object -> TokenUsage. Anthropic's `input_tokens` leaves out the prompt tokens read from
 * or written to the prompt cache, so the prompt is the sum of all of them; cache reads are `cachedTokens`,
 * cache writes are counted by lifetime (each is billed at its own price).
 */
export function tokenUsageFromAnthropic(usage: unknown): TokenUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const record = usage as Record<string, unknown>;
  if (typeof record.input_tokens !== "number" && typeof record.output_tokens !== "number") return null;
  const cachedTokens = tokenCount(record.cache_read_input_tokens);
  const { write5m, write1h } = anthropicCacheWrites(record);
  return withCacheWrites(
    { promptTokens: tokenCount(record.input_tokens) + cachedTokens + write5m + write1h, completionTokens: tokenCount(record.output_tokens), cachedTokens },
    write5m,
    write1h,
  );
}

const USAGE_COUNTS = ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"] as const;
const CACHE_CREATION_COUNTS = ["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"] as const;

/** Usage that a stream reports in parts, merged as the parts arrive. */
export interface AnthropicUsageAccumulator {
  /** One usage object (message_start's message.usage, a message_delta's usage); anything else is ignored. */
  add(usage: unknown): void;
  /** The usage so far; null until a part carried a count. */
  readonly usage: TokenUsage | null;
}

/**
 * Merges a stream's usage parts: message_start carries the input side (input and cache tokens), each
 * message_delta the cumulative output tokens and, in current API versions, the input side again. Each
 * count (cache_creation's lifetimes included) takes its latest value; a count a part leaves out is kept.
 */
export function createAnthropicUsageAccumulator(): AnthropicUsageAccumulator {
  const fields: Record<string, number> = {};
  const creation: Record<string, number> = {};
  let seen = false;
  const copy = (from: Record<string, unknown>, names: readonly string[], into: Record<string, number>) => {
    for (const name of names) {
      const value = from[name];
      if (typeof value === "number" && Number.isFinite(value)) {
        into[name] = value;
        seen = true;
      }
    }
  };
  return {
    add(usage) {
      if (!isRecord(usage)) return;
      copy(usage, USAGE_COUNTS, fields);
      if (isRecord(usage.cache_creation)) copy(usage.cache_creation, CACHE_CREATION_COUNTS, creation);
    },
    get usage() {
      if (!seen) return null;
      const cacheCreation = Object.keys(creation).length > 0 ? { cache_creation: creation } : {};
      return tokenUsageFromAnthropic({ input_tokens: 0, output_tokens: 0, ...fields, ...cacheCreation });
    },
  };
}
