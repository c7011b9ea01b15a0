import type { TokenUsage } from "@tollgate/shared";
import { tokenCount } from "../shared/token-count";

/** OpenAI's usage object as Azure sends it (chat and embeddings); null when there is none. */
export function extractUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const record = usage as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } };
  if (typeof record.prompt_tokens !== "number") return null;
  const promptTokens = tokenCount(record.prompt_tokens);
  return {
    promptTokens,
    completionTokens: tokenCount(record.completion_tokens),
    cachedTokens: Math.min(tokenCount(record.prompt_tokens_details?.cached_tokens), promptTokens),
  };
}
