import type { AnthropicStopReason } from "@tollgate/upstream";

/** OpenAI `finish_reason` -> Anthropic `stop_reason`. OpenAI does not say which stop sequence matched, so "stop" is end_turn. */
export function mapOpenAIFinishReason(finishReason: unknown): AnthropicStopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "content_filter":
      return "refusal";
    default:
      return "end_turn";
  }
}
