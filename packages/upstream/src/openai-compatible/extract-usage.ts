import type { TokenUsage } from "@tollgate/shared";

/** OpenAI's usage object (chat, completions, embeddings), tolerant of vendors that omit parts. */
export function extractUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const record = usage as Record<string, unknown>;
  const promptTokens = Number(record.prompt_tokens ?? record.input_tokens ?? 0);
  const completionTokens = Number(record.completion_tokens ?? record.output_tokens ?? 0);
  const details = (record.prompt_tokens_details ?? record.input_tokens_details) as Record<string, unknown> | undefined;
  // DeepSeek reports cache hits at the top level.
  const cachedTokens = Number(details?.cached_tokens ?? record.prompt_cache_hit_tokens ?? 0);
  if (!Number.isFinite(promptTokens) || !Number.isFinite(completionTokens)) return null;
  return {
    promptTokens: Math.max(0, Math.trunc(promptTokens)),
    completionTokens: Math.max(0, Math.trunc(completionTokens)),
    cachedTokens: Number.isFinite(cachedTokens) ? Math.max(0, Math.trunc(cachedTokens)) : 0,
  };
}
