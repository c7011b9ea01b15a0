/** Finish reasons and prompt block reasons that mean content was withheld by a filter. */
const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "MODEL_ARMOR", "JAILBREAK"]);

/**
 * Gemini `finishReason` -> OpenAI `finish_reason`. Gemini says STOP after a function call; OpenAI clients
 * loop on "tool_calls", so a candidate that called a function finished with "tool_calls" unless it was cut
 * off or filtered. Reasons OpenAI has no word for (LANGUAGE, MALFORMED_FUNCTION_CALL, OTHER, ...) are "stop".
 * Null while the candidate is still going.
 */
export function mapFinishReason(finishReason: string | undefined, calledFunctions: boolean): string | null {
  if (!finishReason || finishReason === "FINISH_REASON_UNSPECIFIED") return null;
  if (finishReason === "MAX_TOKENS") return "length";
  if (FILTERED.has(finishReason)) return "content_filter";
  return calledFunctions ? "tool_calls" : "stop";
}

/** A prompt blocked before generation (`promptFeedback.blockReason`, no candidates). */
export function isPromptBlocked(blockReason: string | undefined): boolean {
  return typeof blockReason === "string" && blockReason !== "" && blockReason !== "BLOCK_REASON_UNSPECIFIED";
}
