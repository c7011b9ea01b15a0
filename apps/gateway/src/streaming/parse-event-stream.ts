import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";

/**
 * Upstream bytes -> SSE events, the first stage of every translated relay: one stage that decodes UTF-8
 * (streaming, so a character split across chunks survives) and feeds eventsource-parser, instead of two
 * chained streams.
 */
export function parseEventStream(body: ReadableStream<Uint8Array>): ReadableStream<EventSourceMessage> {
  const decoder = new TextDecoder();
  let parser: ReturnType<typeof createParser>;
  return body.pipeThrough(
    new TransformStream<Uint8Array, EventSourceMessage>({
      start(controller) {
        parser = createParser({ onEvent: (event) => controller.enqueue(event) });
      },
      transform(chunk) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      },
      flush() {
        const rest = decoder.decode();
        if (rest) parser.feed(rest);
        // Some upstreams end without the blank line after their last event: close it, so it is not lost.
        parser.feed("\n\n");
      },
    }),
  );
}
