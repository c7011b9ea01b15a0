import { MICROS_PER_USD, type TokenUsage } from "@tollgate/shared";
import { type ChatStreamPart, type ChatTranslationInput, extractUsage } from "@tollgate/upstream";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { eventData } from "../../streaming/event-data";
import { createPassthroughFramer, renderEvent } from "../../streaming/openai-event-passthrough";
import { relayStream } from "../../streaming/relay-stream";
import { streamFailure } from "../../streaming/stream-failure";
import { adapterChatParts } from "./adapter-chat-parts";
import { collectChunkText } from "./produced-text";

const encoder = new TextEncoder();
const doneFrame = encoder.encode("data: [DONE]\n\n");
/** Relayed SSE bytes a stream keeps for a possible local count before folding them into their text. */
export const KEPT_EVENT_BYTES = 16 * 1024;

function openAIErrorFrame(kind: "stalled" | "failed", error: unknown, translated: boolean): Uint8Array {
  const failure = streamFailure(kind, error);
  // A translating adapter's own error says what went wrong with the upstream's stream (never a secret).
  const message = failure.code === "upstream_stream_error" && translated && error instanceof Error ? error.message : failure.message;
  return encoder.encode(`data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code: failure.code } })}\n\n`);
}

/**
 * A chunk that carries a usage object, as the client gets it: "" when it is the usage-only chunk the client
 * did not ask for (`stream_options.include_usage`: dropped), its content without the usage when a vendor put
 * usage on a content chunk; when the client asked for usage, the chunk with the call's exact cost for the
 * `billed` usage added to its usage as `cost` (USD, as OpenRouter reports it). Undefined when the chunk goes
 * out as it came.
 */
function renderUsageChunk(
  chunk: Record<string, unknown>,
  clientWantsUsage: boolean,
  billed: TokenUsage | null,
  sink: StreamSink,
): string | undefined {
  const reported = chunk.usage;
  if (!reported) return undefined;
  if (clientWantsUsage) {
    if (!billed || typeof reported !== "object") return undefined;
    const usage = { ...(reported as Record<string, unknown>), cost: sink.costOf(billed) / MICROS_PER_USD };
    return `data: ${JSON.stringify({ ...chunk, usage })}\n\n`;
  }
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return "";
  const { usage: _usage, ...rest } = chunk;
  return `data: ${JSON.stringify(rest)}\n\n`;
}

/**
 * Relays a chat (or legacy completions) stream in OpenAI's format. An upstream that speaks it has its SSE
 * bytes forwarded byte for byte (only the chunks that carry usage are parsed); any other has its adapter's
 * chunk parts framed here, with `[DONE]` appended. Usage reaches the sink from the usage chunk or part;
 * the text produced is gathered from what passed, and parsed from the relayed text only if no usage came.
 */
export function relayOpenAIStream(
  forwarded: ForwardedResponse<ChatTranslationInput>,
  clientWantsUsage: boolean,
  sink: StreamSink,
): ReadableStream<Uint8Array> {
  let usage: TokenUsage | null = null;
  const produced: string[] = [];
  // Relayed events are kept as their SSE bytes (or text) and parsed only if the upstream never reports usage;
  // once it has, they are dropped (the local count is read only without usage). A long stream's events are
  // folded into the text they carry every KEPT_EVENT_BYTES, so that what a stream holds for a possible local
  // count is its text (a few bytes a token), not its whole SSE (a few hundred bytes a token).
  let forwardedTexts: (string | Uint8Array)[] = [];
  let keptBytes = 0;
  const foldForwarded = () => {
    for (const data of eventData(forwardedTexts)) {
      try {
        collectChunkText(JSON.parse(data), produced);
      } catch {
        // Not JSON ([DONE], a vendor's comment): nothing the model produced.
      }
    }
    forwardedTexts = [];
    keptBytes = 0;
    // One string for the text so far, not a string per delta.
    if (produced.length > 1) produced.splice(0, produced.length, produced.join(""));
  };
  const keepForwarded = (events: string | Uint8Array) => {
    if (usage) return;
    forwardedTexts.push(events);
    keptBytes += typeof events === "string" ? events.length : events.byteLength;
    if (keptBytes >= KEPT_EVENT_BYTES) foldForwarded();
  };
  const producedText = () => {
    foldForwarded();
    return produced.join("");
  };
  const relayOptions = {
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome: Parameters<StreamSink["end"]>[0]) => sink.end(outcome, usage, producedText),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  };
  const body = forwarded.response.body!;
  if (forwarded.adapter.relaysOpenAIFormat) {
    // The usage of the event just parsed (onUsageEvent runs right before its renderUsageEvent).
    let eventUsage: TokenUsage | null = null;
    const framer = createPassthroughFramer({
      onUsageEvent(_event, chunk) {
        eventUsage = chunk.usage ? extractUsage(chunk.usage) : null;
        usage = eventUsage ?? usage;
        collectChunkText(chunk, produced);
        if (usage && forwardedTexts.length > 0) forwardedTexts = [];
      },
      onForwarded: keepForwarded,
      renderUsageEvent: (event, chunk) => {
        const text = renderUsageChunk(chunk, clientWantsUsage, eventUsage, sink);
        return text === undefined ? renderEvent(event) : text;
      },
    }, sink.maxEventBytes);
    return relayStream<Uint8Array>(body, {
      ...relayOptions,
      frame: framer.frame,
      closing: framer.flush,
      pendingFailure: framer.failure,
      errorFrame: (kind, error) => openAIErrorFrame(kind, error, false),
    });
  }
  const parts = adapterChatParts(forwarded, sink.maxEventBytes);
  // The usage chunk a client asked for is held until the adapter's usage part (the figure billed) follows
  // it, so that the chunk's cost is the one billed.
  let heldUsageChunk: Record<string, unknown> | null = null;
  const renderChunk = (chunk: Record<string, unknown>, billed: TokenUsage | null) =>
    renderUsageChunk(chunk, clientWantsUsage, billed, sink) ?? `data: ${JSON.stringify(chunk)}\n\n`;
  return relayStream<ChatStreamPart>(parts, {
    ...relayOptions,
    frame(part) {
      if (part.type === "usage") {
        usage = part.usage;
        if (!heldUsageChunk) return null;
        const held = heldUsageChunk;
        heldUsageChunk = null;
        return encoder.encode(renderChunk(held, usage));
      }
      collectChunkText(part.chunk, produced);
      if (clientWantsUsage && part.chunk.usage) {
        heldUsageChunk = part.chunk;
        return null;
      }
      const text = renderChunk(part.chunk, null);
      return text ? encoder.encode(text) : null;
    },
    closing: () => {
      if (!heldUsageChunk) return doneFrame;
      const held = heldUsageChunk;
      heldUsageChunk = null;
      return encoder.encode(`${renderChunk(held, extractUsage(held.usage))}data: [DONE]\n\n`);
    },
    errorFrame: (kind, error) => openAIErrorFrame(kind, error, true),
  });
}
