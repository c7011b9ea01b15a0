import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";
import { DEFAULT_UPSTREAM_MAX_EVENT_BYTES, type ProviderAdapter } from "@tollgate/upstream";
import { EventSizeLimit } from "./event-size-limit";

/**
 * Upstream bytes -> SSE events, the first stage of every translated relay: one stage that decodes UTF-8
 * (streaming, so a character split across chunks survives) and feeds eventsource-parser, read as its
 * consumer pulls. An event longer than `maxEventBytes` ends the stream with UpstreamResponseTooLargeError
 * once the whole events before it are handed over (the parser would otherwise buffer an event that never
 * ends, without bound); the relay then closes the client's stream with an error event in its format.
 */
export function parseEventStream(
  body: ReadableStream<Uint8Array>,
  maxEventBytes = DEFAULT_UPSTREAM_MAX_EVENT_BYTES,
): ReadableStream<EventSourceMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const eventSize = new EventSizeLimit(maxEventBytes);
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => parsed.push(event) });
  const handOver = (controller: ReadableStreamDefaultController<EventSourceMessage>) => {
    for (const event of parsed) controller.enqueue(event);
    parsed.length = 0;
  };
  return new ReadableStream<EventSourceMessage>(
    {
      async pull(controller) {
        if (eventSize.exceeded) {
          reader.cancel(eventSize.exceeded).catch(() => {});
          controller.error(eventSize.exceeded);
          return;
        }
        while (parsed.length === 0) {
          const { done, value } = await reader.read();
          if (done) {
            const rest = decoder.decode();
            if (rest) parser.feed(rest);
            // Some upstreams end without the blank line after their last event: close it, so it is not lost.
            parser.feed("\n\n");
            handOver(controller);
            controller.close();
            return;
          }
          const accepted = eventSize.accept(value);
          if (accepted > 0) parser.feed(decoder.decode(accepted === value.byteLength ? value : value.subarray(0, accepted), { stream: true }));
          if (eventSize.exceeded) {
            if (parsed.length > 0) break;
            reader.cancel(eventSize.exceeded).catch(() => {});
            controller.error(eventSize.exceeded);
            return;
          }
        }
        handOver(controller);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * An upstream stream's events, however it frames them: its adapter's decoder when the upstream does not
 * speak SSE (Bedrock's binary AWS event-stream), parseEventStream otherwise. Both end the stream with
 * UpstreamResponseTooLargeError at an event past `maxEventBytes`.
 */
export function upstreamEvents(
  adapter: Pick<ProviderAdapter, "createStreamDecoder">,
  body: ReadableStream<Uint8Array>,
  maxEventBytes = DEFAULT_UPSTREAM_MAX_EVENT_BYTES,
): ReadableStream<EventSourceMessage> {
  const decoder = adapter.createStreamDecoder?.({ maxEventBytes });
  return decoder ? body.pipeThrough(decoder) : parseEventStream(body, maxEventBytes);
}

/**
 * Whether an upstream's answer to a stream request is a stream the relay reads: SSE, or for an adapter with
 * its own decoder any answer but JSON (Bedrock's application/vnd.amazon.eventstream); a JSON answer is read whole.
 */
export function answersAsStream(adapter: Pick<ProviderAdapter, "createStreamDecoder">, response: Response): boolean {
  const contentType = response.headers.get("content-type") ?? "";
  return adapter.createStreamDecoder ? !contentType.includes("json") : contentType.includes("text/event-stream");
}
