import { isRecord } from "@tollgate/shared";
import type { TokenUsage } from "@tollgate/shared";
import { tokenUsageFromAnthropic } from "@tollgate/upstream";

/** Usage of a non-streamed Anthropic Message body (passed through unchanged on the native path). */
export function extractAnthropicUsage(body: unknown): TokenUsage | null {
  return isRecord(body) ? tokenUsageFromAnthropic(body.usage) : null;
}

export interface AnthropicUsageTap {
  /** Each SSE event's data, parsed or as the JSON text; events other than message_start and message_delta are ignored. */
  observe(eventData: Record<string, unknown> | string): void;
  /** The usage so far (final after message_stop); null before message_start brought any. */
  readonly usage: TokenUsage | null;
}

/**
 * Reads usage from a native Anthropic stream as it passes: message_start carries the input side (input and
 * cache tokens), each message_delta the cumulative output tokens and, in current API versions, the input
 * side again. Later non-null values win.
 */
export function createAnthropicUsageTap(): AnthropicUsageTap {
  const fields: Record<string, number> = {};
  let seen = false;

  const merge = (usage: unknown) => {
    if (!isRecord(usage)) return;
    for (const key of ["input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"]) {
      const value = usage[key];
      if (typeof value === "number" && Number.isFinite(value)) {
        fields[key] = value;
        seen = true;
      }
    }
  };

  return {
    observe(eventData) {
      let event: unknown = eventData;
      if (typeof eventData === "string") {
        try {
          event = JSON.parse(eventData);
        } catch {
          return;
        }
      }
      if (!isRecord(event)) return;
      if (event.type === "message_start" && isRecord(event.message)) merge(event.message.usage);
      else if (event.type === "message_delta") merge(event.usage);
    },
    get usage() {
      return seen ? tokenUsageFromAnthropic({ input_tokens: 0, output_tokens: 0, ...fields }) : null;
    },
  };
}
