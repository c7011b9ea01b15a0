/** Anthropic `stop_reason` -> OpenAI `finish_reason`. */
export function mapAnthropicStopReason(stopReason: unknown): string | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case "end_turn":
    case "stop_sequence":
    // A server tool's long turn was paused; the text so far is complete as far as the client can tell.
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
