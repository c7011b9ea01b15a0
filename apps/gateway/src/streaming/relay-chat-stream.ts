import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";
import { createPassthroughFramer, renderEvent } from "./openai-event-passthrough";
import { relayStream, type StreamOutcome } from "./relay-stream";

export { carriesUsage } from "./openai-event-passthrough";
export type { StreamOutcome } from "./relay-stream";

export interface RelayTap {
  /** Chunks that were parsed (translated ones, and relayed ones that carry usage), before they are forwarded. */
  onChunk(chunk: Record<string, unknown>): void;
  /** Relayed events forwarded without parsing (no usage in them): their SSE text, for a local count later. */
  onRawText(text: string): void;
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
 * - `body`: an OpenAI-compatible upstream's SSE bytes, forwarded byte for byte (only the usage chunk is parsed);
 * - `chunks`: chat.completion.chunk objects from a provider adapter, framed here, with `[DONE]` appended.
 */
export function relayChatStream(
  source: { body: ReadableStream<Uint8Array> } | { chunks: ReadableStream<Record<string, unknown>> },
  options: RelayOptions,
): ReadableStream<Uint8Array> {
  const relayOptions = {
    onFirstItem: options.tap.onFirstEvent,
    onFinish: options.tap.onFinish,
    abortUpstream: options.abortUpstream,
    idleTimeoutMs: options.idleTimeoutMs,
  };
  if ("body" in source) {
    const framer = createPassthroughFramer({
      onUsageEvent: (_event, chunk) => options.tap.onChunk(chunk),
      onForwardedText: options.tap.onRawText,
      renderUsageEvent: (event, chunk) => {
        const text = withoutUnaskedUsage(chunk, options.forwardUsageChunk);
        return text === undefined ? renderEvent(event) : text;
      },
    });
    return relayStream<Uint8Array>(source.body, {
      ...relayOptions,
      frame: framer.frame,
      closing: framer.flush,
      errorFrame: (kind, error) => openAIErrorFrame(kind, error, false),
    });
  }

  return relayStream<Record<string, unknown>>(source.chunks, {
    ...relayOptions,
    frame(chunk) {
      options.tap.onChunk(chunk);
      const text = withoutUnaskedUsage(chunk, options.forwardUsageChunk) ?? `data: ${JSON.stringify(chunk)}\n\n`;
      return text ? encoder.encode(text) : null;
    },
    closing: () => doneFrame,
    errorFrame: (kind, error) => openAIErrorFrame(kind, error, true),
  });
}

/**
 * A chunk with a usage object the client did not ask for (`stream_options.include_usage`): "" when it is the
 * usage-only chunk (dropped), its content without the usage when a vendor put usage on a content chunk;
 * undefined when the chunk goes out as it is.
 */
function withoutUnaskedUsage(chunk: Record<string, unknown>, forwardUsageChunk: boolean): string | undefined {
  if (forwardUsageChunk || !chunk.usage) return undefined;
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return "";
  const { usage: _usage, ...rest } = chunk;
  return `data: ${JSON.stringify(rest)}\n\n`;
}
