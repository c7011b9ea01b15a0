import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";
import { DEFAULT_UPSTREAM_MAX_EVENT_BYTES } from "@tollgate/upstream";
import { EventSizeLimit } from "./event-size-limit";

/**
 * Upstream bytes -> SSE events, the first stage of every translated relay: one stage that decodes UTF-8
 * (streaming, so a character split across chunks survives) and feeds eventsource-parser, instead of two
 * chained streams. An event longer than `maxEventBytes` errors the stream with UpstreamResponseTooLargeError
 * (the parser would otherwise buffer an event that never ends, without bound), which the relay ends with
 * an error event in the client's format.
 */
export function parseEventStream(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = DEFAULT_UPSTREAM_MAX_EVENT_BYTES,
): ReadableStream<EventSourceMessage> {
  const decoder = new TextDecoder();
  const eventSize = new EventSizeLimit(maxEventBytes);
  let parser: ReturnType<typeof createParser>;
  return body.pipeThrough(
    new TransformStream<Uint8Array, EventSourceMessage>({
      start(controller) {
        parser = createParser({ onEvent: (event) => controller.enqueue(event) });
      },
      transform(chunk) {
        eventSize.observe(chunk);
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
