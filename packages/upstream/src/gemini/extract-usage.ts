import type { TokenUsage } from "@tollgate/shared";
import type { GeminiUsageMetadata } from "./gemini-types";
import { openAIUsageOf } from "../shared/openai-usage";
import { tokenCount } from "../shared/token-count";

/**
 * Gemini's usageMetadata -> our usage. `cachedContentTokenCount` (a part of the prompt count, read from
 * an explicit or implicit context cache) is the cache reads; Gemini bills no cache writes per call. Thoughts are billed as output, so they count as completion tokens;
 * tool-use prompt tokens (grounding results) are billed as input. Null until the prompt count is there:
 * some stream events carry a usageMetadata without counts.
 */
export function extractUsage(metadata: GeminiUsageMetadata | undefined): TokenUsage | null {
  if (!metadata || typeof metadata.promptTokenCount !== "number") return null;
  const promptTokens = tokenCount(metadata.promptTokenCount) + tokenCount(metadata.toolUsePromptTokenCount);
  return {
    promptTokens,
    completionTokens: tokenCount(metadata.candidatesTokenCount) + tokenCount(metadata.thoughtsTokenCount),
    cachedTokens: Math.min(tokenCount(metadata.cachedContentTokenCount), promptTokens),
  };
}

/** The OpenAI `usage` object for a completion or the final stream chunk. */
export function openAIUsage(metadata: GeminiUsageMetadata | undefined): Record<string, unknown> | null {
  const usage = extractUsage(metadata);
  if (!usage) return null;
  return {
    ...openAIUsageOf(usage),
    completion_tokens_details: { reasoning_tokens: tokenCount(metadata?.thoughtsTokenCount) },
  };
}
