import type { TokenUsage } from "@tollgate/shared";
import type { ChatTranslationInput } from "@tollgate/upstream";
import type { EventSourceMessage } from "eventsource-parser";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { parseEventStream } from "../../streaming/parse-event-stream";
import { relayStream } from "../../streaming/relay-stream";
import { streamFailure } from "../../streaming/stream-failure";
import { type ChatToResponseEventsOptions, createChatToResponseEvents, type ResponsesEvent } from "./chat-stream-to-response-events";
import { type BuiltInToolCalls, mergeToolCalls, responsesItemFamily, responsesToolCalls } from "../../accounting/built-in-tools";
import { ChatStreamTally, tallyAdapterChatParts } from "../openai-chat/adapter-chat-parts";
import { extractResponsesUsage } from "./extract-responses-usage";

const encoder = new TextEncoder();

function sseFrame(type: string, data: string): Uint8Array {
  return encoder.encode(`event: ${type}\ndata: ${data}\n\n`);
}

/** The stream's `error` event (OpenAI, "Streaming events: error") for an upstream that broke off or went silent. */
function errorEvent(kind: "stalled" | "failed", cause: unknown, sequenceNumber: number): Uint8Array {
  const failure = streamFailure(kind, cause);
  const event = {
    type: "error",
    code: failure.code,
    message: failure.message,
    param: null,
    sequence_number: sequenceNumber,
  };
  return sseFrame("error", JSON.stringify(event));
}

const finalEvents = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** An event's type: its `event:` line, or (for upstreams that send only `data:` lines) the `type` in its data. */
function typeOf(event: EventSourceMessage): string | null {
  if (event.event) return event.event;
  try {
    const type = (JSON.parse(event.data) as { type?: unknown }).type;
    return typeof type === "string" ? type : null;
  } catch {
    return null;
  }
}

/**
 * A channel that speaks the Responses API: its events relayed as they came (data untouched, framed as the
 * upstream framed them). Only the final event and each output item's start are parsed, for the usage, the
 * built-in tool calls (counted as they start: a call begun is billed upstream even if the stream is then
 * cut) and the Response object to store;
 * upstream sequence numbers count from 0, one per event, so an error frame the gateway appends takes the
 * next one. A stream that ends with response.failed is accounted as a failed call.
 */
export function relayNativeResponsesStream(
  forwarded: ForwardedResponse<unknown>,
  sink: StreamSink,
  onFinal: (response: Record<string, unknown>) => void,
): ReadableStream<Uint8Array> {
  let usage: TokenUsage | null = null;
  let events = 0;
  let failed = false;
  const produced: string[] = [];
  let toolCalls: BuiltInToolCalls = {};
  return relayStream<EventSourceMessage>(parseEventStream(forwarded.response.body!, sink.maxEventBytes), {
    frame(event) {
      events += 1;
      const type = typeOf(event);
      if (type === "response.output_text.delta" || type === "response.function_call_arguments.delta") {
        produced.push(event.data);
      } else if (type === "response.output_item.added") {
        try {
          const family = responsesItemFamily((JSON.parse(event.data) as { item?: unknown }).item);
          if (family) toolCalls[family] = (toolCalls[family] ?? 0) + 1;
        } catch {
          // Relayed as it came; an unreadable item is not counted.
        }
      } else if (type !== null && finalEvents.has(type)) {
        failed = type === "response.failed";
        try {
          const response = (JSON.parse(event.data) as { response?: Record<string, unknown> }).response;
          usage = extractResponsesUsage(response);
          toolCalls = mergeToolCalls(toolCalls, responsesToolCalls(response));
          if (response && !failed) onFinal(response);
        } catch {
          // Relayed as it came all the same; usage is then counted locally.
        }
      }
      return event.event ? sseFrame(event.event, event.data) : encoder.encode(`data: ${event.data}\n\n`);
    },
    errorFrame: (kind, cause) => errorEvent(kind, cause, events),
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) =>
      sink.end(
        outcome === "completed" && failed ? "failed" : outcome,
        usage,
        () =>
          produced
            .map((data) => {
              try {
                return String((JSON.parse(data) as { delta?: unknown }).delta ?? "");
              } catch {
                return "";
              }
            })
            .join(""),
        undefined,
        toolCalls,
      ),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}

/** Any other channel: its chat stream, through its adapter, rendered as the Responses event sequence. */
export function relayTranslatedResponsesStream(
  forwarded: ForwardedResponse<ChatTranslationInput>,
  sink: StreamSink,
  options: ChatToResponseEventsOptions,
): ReadableStream<Uint8Array> {
  const tally = new ChatStreamTally();
  let sequenceNumber = 0;
  const events = tallyAdapterChatParts(forwarded, sink.maxEventBytes, tally).pipeThrough(createChatToResponseEvents(options));
  // An upstream error chunk ends the stream cleanly with response.failed: the call is still a failure.
  let failed = false;
  return relayStream<ResponsesEvent>(events, {
    frame(event) {
      if (event.type === "response.failed") failed = true;
      return sseFrame(event.type, JSON.stringify({ ...event, sequence_number: sequenceNumber++ }));
    },
    errorFrame: (kind, cause) => errorEvent(kind, cause, sequenceNumber++),
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) => sink.end(outcome === "completed" && failed ? "failed" : outcome, tally.usage, tally.text),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}
