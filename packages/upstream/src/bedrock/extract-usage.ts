import type { TokenUsage } from "@tollgate/shared";
import { tokenCount } from "../shared/token-count";

/**
 * Converse's usage -> TokenUsage. `inputTokens` leaves out the prompt tokens read from and written to the
 * prompt cache (totalTokens counts all four), so the prompt is their sum; cache writes are Converse's
 * default (5-minute) cache points.
 */
export function tokenUsageFromConverse(usage: unknown): TokenUsage | null {
  if (typeof usage !== "object" || usage === null) return null;
  const record = usage as Record<string, unknown>;
  if (typeof record.inputTokens !== "number" && typeof record.outputTokens !== "number") return null;
  const cachedTokens = tokenCount(record.cacheReadInputTokens);
  const cacheWriteTokens = tokenCount(record.cacheWriteInputTokens);
  return {
    promptTokens: tokenCount(record.inputTokens) + cachedTokens + cacheWriteTokens,
    completionTokens: tokenCount(record.outputTokens),
    cachedTokens,
    ...(cacheWriteTokens > 0 ? { cacheWriteTokens } : {}),
  };
}

/** TokenUsage as OpenAI's `usage` object. */
export function openAIUsageOf(usage: TokenUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
  };
}

/** Converse's stopReason -> OpenAI's finish_reason. */
export function finishReasonOf(stopReason: unknown, calledTools: boolean): string {
  if (stopReason === "tool_use" || (calledTools && stopReason === "end_turn")) return "tool_calls";
  if (stopReason === "max_tokens" || stopReason === "model_context_window_exceeded") return "length";
  if (stopReason === "guardrail_intervened" || stopReason === "content_filtered") return "content_filter";
  return "stop";
}
