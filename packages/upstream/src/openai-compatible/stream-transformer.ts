import type { EventSourceMessage } from "eventsource-parser";
import type { ChatStreamPart } from "../provider-adapter";
import { extractUsage } from "./extract-usage";

/**
 * OpenAI-format SSE events -> chunk parts, for a client that is not sent the upstream's bytes as they are
 * (e.g. /v1/messages, which renders the chunks as Anthropic events); `[DONE]` ends it. A chunk that carries
 * usage is followed by a usage part. The OpenAI chat relay does not use this: it passes bytes through.
 */
export function createChatStreamTransformer(): TransformStream<EventSourceMessage, ChatStreamPart> {
  return new TransformStream<EventSourceMessage, ChatStreamPart>({
    transform(event, controller) {
      if (event.data === "[DONE]") return;
      let chunk: Record<string, unknown>;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        // A keep-alive or vendor comment line that is not JSON carries nothing to relay.
        return;
      }
      controller.enqueue({ type: "chunk", chunk });
      if (chunk.usage) {
        const usage = extractUsage(chunk.usage);
        if (usage) controller.enqueue({ type: "usage", usage });
      }
    },
  });
}
