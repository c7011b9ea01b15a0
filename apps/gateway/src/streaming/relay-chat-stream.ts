import type { EventSourceMessage } from "eventsource-parser";
import { EventSourceParserStream } from "eventsource-parser/stream";

export type StreamOutcome = "completed" | "cancelled" | "failed" | "stalled";

export interface RelayTap {
  /** Every parsed chunk, in order, before it is forwarded. */
  onChunk(chunk: Record<string, unknown>): void;
  onFirstEvent(): void;
  /** Called exactly once: the stream ended, the client went away, the upstream broke or stalled. */
  onFinish(outcome: StreamOutcome, error?: unknown): void;
}

export interface RelayOptions {
  /** The client asked for `stream_options.include_usage`; otherwise the usage-only chunk is dropped. */
  forwardUsageChunk: boolean;
  /** Cancels the upstream call (client disconnected, stream stalled). */
  abortUpstream: () => void;
  /** Longest silence allowed between two upstream events. */
  idleTimeoutMs: number;
  tap: RelayTap;
}

const encoder = new TextEncoder();
const doneFrame = encoder.encode("data: [DONE]\n\n");

/** Upstream bytes -> SSE events, the first stage of every relay. */
export function parseEventStream(body: ReadableStream<Uint8Array>): ReadableStream<EventSourceMessage> {
  return body
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .pipeThrough(new EventSourceParserStream());
}

class IdleTimeout extends Error {}

function errorFrame(message: string, code: string): Uint8Array {
  const envelope = { error: { message, type: "server_error", param: null, code } };
  return encoder.encode(`data: ${JSON.stringify(envelope)}\n\n`);
}

/**
 * Relays a chat stream to the client chunk by chunk as it arrives (pull-driven: a slow client slows the
 * upstream instead of filling memory). Two sources:
 * - `events`: OpenAI-compatible SSE events, forwarded byte for byte (the tap parses a copy);
 * - `chunks`: chat.completion.chunk objects from a provider adapter, framed here, with `[DONE]` appended.
 * Cancelling the returned stream (client gone) cancels the upstream call; a silence longer than the idle
 * timeout ends the stream with an error event.
 */
export function relayChatStream(
  source: { events: ReadableStream<EventSourceMessage> } | { chunks: ReadableStream<Record<string, unknown>> },
  options: RelayOptions,
): ReadableStream<Uint8Array> {
  const translated = "chunks" in source;
  const reader = (translated ? source.chunks : source.events).getReader() as ReadableStreamDefaultReader<
    EventSourceMessage | Record<string, unknown>
  >;
  let finished = false;
  let sawFirst = false;
  let sentDone = false;
  const finish = (outcome: StreamOutcome, error?: unknown) => {
    if (finished) return;
    finished = true;
    options.tap.onFinish(outcome, error);
  };

  const read = () => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const idle = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new IdleTimeout()), options.idleTimeoutMs);
    });
    return Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
  };

  const frameChunk = (chunk: Record<string, unknown>, raw: EventSourceMessage | null): Uint8Array | null => {
    options.tap.onChunk(chunk);
    if (!options.forwardUsageChunk && chunk.usage) {
      const choices = chunk.choices;
      if (!Array.isArray(choices) || choices.length === 0) return null;
      // Some vendors put usage on the last content chunk: keep the content, drop what was not asked for.
      const { usage: _usage, ...rest } = chunk;
      return encoder.encode(`data: ${JSON.stringify(rest)}\n\n`);
    }
    if (raw) return encoder.encode(`${raw.event ? `event: ${raw.event}\n` : ""}data: ${raw.data}\n\n`);
    return encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`);
  };

  const frame = (item: EventSourceMessage | Record<string, unknown>): Uint8Array | null => {
    if (!sawFirst) {
      sawFirst = true;
      options.tap.onFirstEvent();
    }
    if (translated) return frameChunk(item as Record<string, unknown>, null);
    const event = item as EventSourceMessage;
    if (event.data === "[DONE]") {
      sentDone = true;
      return doneFrame;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return encoder.encode(`data: ${event.data}\n\n`);
    }
    return frameChunk(chunk, event);
  };

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const { done, value } = await read();
            if (done) {
              if (translated && !sentDone) controller.enqueue(doneFrame);
              finish("completed");
              controller.close();
              return;
            }
            const bytes = frame(value);
            if (bytes) {
              controller.enqueue(bytes);
              return;
            }
          }
        } catch (error) {
          if (finished) return;
          const stalled = error instanceof IdleTimeout;
          if (stalled) options.abortUpstream();
          try {
            controller.enqueue(
              stalled
                ? errorFrame("The upstream stopped sending data; the stream was ended.", "upstream_idle_timeout")
                : errorFrame(error instanceof Error && translated ? error.message : "The upstream stream was interrupted.", "upstream_stream_error"),
            );
            controller.close();
          } catch {
            // The client is gone as well.
          }
          reader.cancel().catch(() => {});
          finish(stalled ? "stalled" : "failed", error);
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
