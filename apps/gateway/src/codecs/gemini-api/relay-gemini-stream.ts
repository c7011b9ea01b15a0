import type { TokenUsage } from "@tollgate/shared";
import { isRecord } from "@tollgate/shared";
import { type ChatTranslationInput, tokenUsageFromGemini } from "@tollgate/upstream";
import type { EventSourceMessage } from "eventsource-parser";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { parseEventStream } from "../../streaming/parse-event-stream";
import { relayStream } from "../../streaming/relay-stream";
import { streamFailure } from "../../streaming/stream-failure";
import { geminiErrorEvent } from "./gemini-error";
import { createOpenAIToGeminiStream, type GeminiStreamState } from "./openai-stream-to-gemini";

const encoder = new TextEncoder();

/** One SSE event as Google frames them (`data: {...}` and a blank line, CRLF). */
function sseFrame(data: string): Uint8Array {
  return encoder.encode(`data: ${data}\r\n\r\n`);
}

function errorFrame(kind: "stalled" | "failed", cause: unknown): Uint8Array {
  const failure = streamFailure(kind, cause);
  return sseFrame(geminiErrorEvent(failure.status, failure.message));
}

/** The text parts of a GenerateContentResponse, for a local count when no usage came. */
export function textOfCandidates(response: unknown): string {
  if (!isRecord(response) || !Array.isArray(response.candidates)) return "";
  let text = "";
  for (const candidate of response.candidates) {
    const parts = isRecord(candidate) && isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) {
      if (!isRecord(part)) continue;
      if (typeof part.text === "string") text += part.text;
      else if (isRecord(part.functionCall)) text += JSON.stringify(part.functionCall);
    }
  }
  return text;
}

/**
 * A Gemini channel's own stream, event by event as it came; usage read from the last usageMetadata that
 * carries counts (cachedContentTokenCount included), the events' JSON parsed for that and nothing else.
 */
export function relayNativeGeminiStream(forwarded: ForwardedResponse<unknown>, sink: StreamSink): ReadableStream<Uint8Array> {
  let usage: TokenUsage | null = null;
  const produced: string[] = [];
  return relayStream<EventSourceMessage>(parseEventStream(forwarded.response.body!, sink.maxEventBytes), {
    frame(event) {
      try {
        const response = JSON.parse(event.data) as { usageMetadata?: Parameters<typeof tokenUsageFromGemini>[0] };
        usage = tokenUsageFromGemini(response.usageMetadata) ?? usage;
        produced.push(textOfCandidates(response));
      } catch {
        // Relayed as it came; the accounting counts what it could read.
      }
      return sseFrame(event.data);
    },
    errorFrame,
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) => sink.end(outcome, usage, () => produced.join("")),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}

/** Any other channel's stream, as OpenAI chunks from its adapter, rendered as Gemini's stream events. */
export function relayTranslatedGeminiStream(forwarded: ForwardedResponse<ChatTranslationInput>, model: string, sink: StreamSink): ReadableStream<Uint8Array> {
  const state: GeminiStreamState = { usage: null, produced: [] };
  const events = parseEventStream(forwarded.response.body!, sink.maxEventBytes)
    .pipeThrough(forwarded.adapter.createChatStreamTransformer(forwarded.attempt.translation))
    .pipeThrough(createOpenAIToGeminiStream(model, state));
  return relayStream<Record<string, unknown>>(events, {
    frame: (event) => sseFrame(JSON.stringify(event)),
    errorFrame,
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) => sink.end(outcome, state.usage, () => state.produced.join("")),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}
