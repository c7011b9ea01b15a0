import { isRecord } from "@tollgate/shared";
import type { TokenUsage } from "@tollgate/shared";
import { createAnthropicUsageAccumulator, tokenUsageFromAnthropic } from "@tollgate/upstream";

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

/** Reads usage from a native Anthropic stream as it passes (message_start, then message_delta; see the accumulator). */
export function createAnthropicUsageTap(): AnthropicUsageTap {
  const accumulator = createAnthropicUsageAccumulator();
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
      if (event.type === "message_start" && isRecord(event.message)) accumulator.add(event.message.usage);
      else if (event.type === "message_delta") accumulator.add(event.usage);
    },
    get usage() {
      return accumulator.usage;
    },
  };
}
