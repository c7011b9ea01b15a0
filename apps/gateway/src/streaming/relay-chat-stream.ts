import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";

export type StreamOutcome = "completed" | "cancelled" | "failed";

export interface RelayTap {
  /** Every parsed chunk, in order, before it is forwarded. */
  onChunk(chunk: Record<string, unknown>): void;
  onFirstEvent(): void;
  /** Called exactly once: the stream ended, the client went away, or the upstream broke. */
  onFinish(outcome: StreamOutcome, error?: unknown): void;
}

export interface RelayOptions {
  /** The client asked for `stream_options.include_usage`; otherwise the usage-only chunk is dropped. */
  forwardUsageChunk: boolean;
  /** Cancels the upstream call (client disconnected). */
  abortUpstream: () => void;
  tap: RelayTap;
}

const encoder = new TextEncoder();

function frame(event: EventSourceMessage, data: string): Uint8Array {
  const prefix = event.event ? `event: ${event.event}\n` : "";
  return encoder.encode(`${prefix}data: ${data}\n\n`);
}

/**
 * Relays an OpenAI-style SSE stream event by event as it arrives (pull-driven, so a slow client slows the
 * upstream instead of filling memory). Each event's data is forwarded byte for byte; the tap sees the parsed
 * chunk for usage and text. Cancelling the returned stream cancels the upstream call.
 */
export function relayChatStream(upstream: ReadableStream<Uint8Array>, options: RelayOptions): ReadableStream<Uint8Array> {
  const reader = upstream
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  let finished = false;
  let sawFirst = false;
  const finish = (outcome: StreamOutcome, error?: unknown) => {
    if (finished) return;
    finished = true;
    options.tap.onFinish(outcome, error);
  };

  const translate = (event: EventSourceMessage): Uint8Array | null => {
    if (!sawFirst) {
      sawFirst = true;
      options.tap.onFirstEvent();
    }
    const data = event.data;
    if (data === "[DONE]") return frame(event, data);
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data);
    } catch {
      return frame(event, data);
    }
    options.tap.onChunk(chunk);
    if (!options.forwardUsageChunk && chunk.usage) {
      const choices = chunk.choices;
      if (!Array.isArray(choices) || choices.length === 0) return null;
      // Some vendors put usage on the last content chunk: keep the content, drop what was not asked for.
      const { usage: _usage, ...rest } = chunk;
      return frame(event, JSON.stringify(rest));
    }
    return frame(event, data);
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) {
              finish("completed");
              controller.close();
              return;
            }
            const bytes = translate(value);
            if (bytes) {
              controller.enqueue(bytes);
              return;
            }
          }
        } catch (error) {
          if (finished) return;
          const envelope = {
            error: {
              message: "The upstream stream was interrupted.",
              type: "server_error",
              param: null,
              code: "upstream_stream_error",
            },
          };
          try {
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(envelope)}\n\n`));
            controller.close();
          } catch {
            // The client is gone as well.
          }
          finish("failed", error);
        }
      },
      cancel() {
        finish("cancelled");
        options.abortUpstream();
        reader.cancel().catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
