import type { TokenUsage } from "@tollgate/shared";
import { cacheWritesFromDetails, withCacheWrites } from "../shared/openai-usage";

/**
 * OpenAI's usage object (chat, completions, embeddings; the Responses API's input/output names too),
 * tolerant of vendors that omit parts. Cache reads are `cached_tokens` in the details; cache writes, when an
 * upstream reports them (OpenRouter, or the gateway's own translation of Anthropic usage), `cache_write_tokens`.
 */
export function extractUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const record = usage as Record<string, unknown>;
  const promptTokens = Number(record.prompt_tokens ?? record.input_tokens ?? 0);
  const completionTokens = Number(record.completion_tokens ?? record.output_tokens ?? 0);
  const details = (record.prompt_tokens_details ?? record.input_tokens_details) as Record<string, unknown> | undefined;
  // DeepSeek reports cache hits at the top level.
  const cachedTokens = Number(details?.cached_tokens ?? record.prompt_cache_hit_tokens ?? 0);
  if (!Number.isFinite(promptTokens) || !Number.isFinite(completionTokens)) return null;
  const { write5m, write1h } = cacheWritesFromDetails(details);
  return withCacheWrites(
    {
      promptTokens: Math.max(0, Math.trunc(promptTokens)),
      completionTokens: Math.max(0, Math.trunc(completionTokens)),
      cachedTokens: Number.isFinite(cachedTokens) ? Math.max(0, Math.trunc(cachedTokens)) : 0,
    },
    write5m,
    write1h,
  );
}
