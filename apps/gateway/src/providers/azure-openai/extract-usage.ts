import type { TokenUsage } from "@tollgate/shared";

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : 0;
}

/** OpenAI's usage object as Azure sends it (chat and embeddings); null when there is none. */
export function extractUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const record = usage as { prompt_tokens?: unknown; completion_tokens?: unknown; prompt_tokens_details?: { cached_tokens?: unknown } };
  if (typeof record.prompt_tokens !== "number") return null;
  const promptTokens = count(record.prompt_tokens);
  return {
    promptTokens,
    completionTokens: count(record.completion_tokens),
    cachedTokens: Math.min(count(record.prompt_tokens_details?.cached_tokens), promptTokens),
  };
}
