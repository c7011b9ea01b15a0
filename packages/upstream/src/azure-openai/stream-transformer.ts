import type { EventSourceMessage } from "eventsource-parser";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { extractUsage } from "./extract-usage";
import { scrubSecret } from "../shared/scrub-secret";
import { parseEventData } from "../shared/stream-chunks";

/** A choice worth forwarding: it carries a delta or a finish_reason (not only content filter annotations). */
function isContentChoice(choice: unknown): boolean {
  if (!choice || typeof choice !== "object") return false;
  const record = choice as { delta?: unknown; finish_reason?: unknown };
  return (record.delta !== undefined && record.delta !== null) || (record.finish_reason !== undefined && record.finish_reason !== null);
}

/**
 * Azure streams OpenAI chunks, so each is passed through, renamed to the public model. What OpenAI never
 * sends is dropped: the first chunk with empty `choices` that carries only `prompt_filter_results`, and the
 * choices that carry only `content_filter_results` (asynchronous filter mode). `[DONE]` is dropped because
 * the gateway appends its own. The usage chunk that `include_usage` asks for is the last event of the
 * stream and is passed through as it comes, followed by a usage part.
 */
export function createChatStreamTransformer(input: ChatTranslationInput): TransformStream<EventSourceMessage, ChatStreamPart> {
  return new TransformStream<EventSourceMessage, ChatStreamPart>({
    transform(event, controller) {
      if (event.data === "" || event.data === "[DONE]") return;
      const chunk = parseEventData<Record<string, unknown>>(event.data, "Azure OpenAI sent a stream event that is not JSON.");
      if (chunk.error) {
        const message = String((chunk.error as { message?: unknown }).message ?? "unknown error");
        throw new Error(`Azure OpenAI ended the stream with an error: ${scrubSecret(message, input.channel.apiKey)}`);
      }
      const usage = extractUsage(chunk.usage);
      const choices = Array.isArray(chunk.choices) ? chunk.choices.filter(isContentChoice) : [];
      if (choices.length === 0 && !usage) return;
      controller.enqueue({ type: "chunk", chunk: { ...chunk, model: input.body.model, choices } });
      if (usage) controller.enqueue({ type: "usage", usage });
    },
  });
}
