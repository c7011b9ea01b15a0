import type { TokenUsage } from "@tollgate/shared";
import { type ChatStreamPart, type ChatTranslationInput, extractUsage } from "@tollgate/upstream";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { eventData } from "../../streaming/event-data";
import { createPassthroughFramer, renderEvent } from "../../streaming/openai-event-passthrough";
import { parseEventStream } from "../../streaming/parse-event-stream";
import { relayStream } from "../../streaming/relay-stream";
import { collectChunkText } from "./produced-text";

const encoder = new TextEncoder();
const doneFrame = encoder.encode("data: [DONE]\n\n");

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
  // Relayed events are kept as their SSE bytes (or text) and parsed only if the upstream never reports usage.
  const forwardedTexts: (string | Uint8Array)[] = [];
  const producedText = () => {
    for (const data of eventData(forwardedTexts)) {
      try {
        collectChunkText(JSON.parse(data), produced);
      } catch {
        // Not JSON ([DONE], a vendor's comment): nothing the model produced.
      }
    }
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
    const framer = createPassthroughFramer({
      onUsageEvent(_event, chunk) {
        if (chunk.usage) usage = extractUsage(chunk.usage) ?? usage;
        collectChunkText(chunk, produced);
      },
      onForwarded: (events) => forwardedTexts.push(events),
      renderUsageEvent: (event, chunk) => {
        const text = withoutUnaskedUsage(chunk, clientWantsUsage);
        return text === undefined ? renderEvent(event) : text;
      },
    });
    return relayStream<Uint8Array>(body, {
      ...relayOptions,
      frame: framer.frame,
      closing: framer.flush,
      errorFrame: (kind, error) => openAIErrorFrame(kind, error, false),
    });
  }
  const parts = parseEventStream(body).pipeThrough(forwarded.adapter.createChatStreamTransformer(forwarded.attempt.translation));
  return relayStream<ChatStreamPart>(parts, {
    ...relayOptions,
    frame(part) {
      if (part.type === "usage") {
        usage = part.usage;
        return null;
      }
      collectChunkText(part.chunk, produced);
      const text = withoutUnaskedUsage(part.chunk, clientWantsUsage) ?? `data: ${JSON.stringify(part.chunk)}\n\n`;
      return text ? encoder.encode(text) : null;
    },
    closing: () => doneFrame,
    errorFrame: (kind, error) => openAIErrorFrame(kind, error, true),
  });
}
