import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";
import { relayStream, type StreamOutcome } from "./relay-stream";

export type { StreamOutcome } from "./relay-stream";

export interface RelayTap {
  /** Chunks that were parsed (translated ones, and relayed ones that carry usage), before they are forwarded. */
  onChunk(chunk: Record<string, unknown>): void;
  /** Relayed chunks forwarded without parsing (no usage in them): their JSON text, for a local count later. */
  onRawChunk(data: string): void;
  onFirstEvent(): void;
  onFinish(outcome: StreamOutcome, error?: unknown): void;
}

export interface RelayOptions {
  /** The client asked for `stream_options.include_usage`; otherwise the usage-only chunk is dropped. */
  forwardUsageChunk: boolean;
  abortUpstream: () => void;
  idleTimeoutMs: number;
  tap: RelayTap;
}

const encoder = new TextEncoder();
const doneFrame = encoder.encode("data: [DONE]\n\n");

/**
 * Upstream bytes -> SSE events, the first stage of every relay: one stage that decodes UTF-8 (streaming, so
 * a character split across chunks survives) and feeds eventsource-parser, instead of two chained streams.
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

/** OpenAI-format SSE events -> chunk objects (for translators that work on objects); `[DONE]` ends it. */
export function parseChatChunks(events: ReadableStream<EventSourceMessage>): ReadableStream<Record<string, unknown>> {
  return events.pipeThrough(
    new TransformStream<EventSourceMessage, Record<string, unknown>>({
      transform(event, controller) {
        if (event.data === "[DONE]") return;
        try {
          controller.enqueue(JSON.parse(event.data));
        } catch {
          // A keep-alive or vendor comment line that is not JSON carries nothing to relay.
        }
      },
    }),
  );
}

/**
 * Whether a relayed chunk carries a usage object. Most chunks carry none, or `"usage":null` when the
 * gateway asked for the usage chunk: those are forwarded without parsing (JSON.parse per chunk is a
 * large share of a relay's CPU at a thousand streams).
 */
export function carriesUsage(data: string): boolean {
  let index = data.indexOf('"usage"');
  while (index !== -1) {
    let cursor = index + 7;
    while (data[cursor] === " ") cursor++;
    if (data[cursor] === ":") {
      cursor++;
      while (data[cursor] === " ") cursor++;
      if (data[cursor] !== "n") return true;
    }
    index = data.indexOf('"usage"', index + 7);
  }
  return false;
}

function openAIErrorFrame(kind: "stalled" | "failed", error: unknown, translated: boolean): Uint8Array {
  const message =
    kind === "stalled"
      ? "The upstream stopped sending data; the stream was ended."
      : error instanceof Error && translated
        ? error.message
        : "The upstream stream was interrupted.";
  const code = kind === "stalled" ? "upstream_idle_timeout" : "upstream_stream_error";
  return encoder.encode(`data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code } })}\n\n`);
}

/**
 * Relays a chat stream in OpenAI's format. Two sources:
 * - `events`: OpenAI-compatible SSE events, forwarded byte for byte (the tap parses a copy);
 * - `chunks`: chat.completion.chunk objects from a provider adapter, framed here, with `[DONE]` appended.
 */
export function relayChatStream(
  source: { events: ReadableStream<EventSourceMessage> } | { chunks: ReadableStream<Record<string, unknown>> },
  options: RelayOptions,
): ReadableStream<Uint8Array> {
  const translated = "chunks" in source;
  let sentDone = false;

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
    if (translated) return frameChunk(item as Record<string, unknown>, null);
    const event = item as EventSourceMessage;
    if (event.data === "[DONE]") {
      sentDone = true;
      return doneFrame;
    }
    if (!carriesUsage(event.data)) {
      options.tap.onRawChunk(event.data);
      return encoder.encode(`${event.event ? `event: ${event.event}\n` : ""}data: ${event.data}\n\n`);
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return encoder.encode(`data: ${event.data}\n\n`);
    }
    return frameChunk(chunk, event);
  };

  return relayStream<EventSourceMessage | Record<string, unknown>>(
    (translated ? source.chunks : source.events) as ReadableStream<EventSourceMessage | Record<string, unknown>>,
    {
      frame,
      closing: () => (translated && !sentDone ? doneFrame : null),
      errorFrame: (kind, error) => openAIErrorFrame(kind, error, translated),
      onFirstItem: options.tap.onFirstEvent,
      onFinish: options.tap.onFinish,
      abortUpstream: options.abortUpstream,
      idleTimeoutMs: options.idleTimeoutMs,
    },
  );
}
