import type { ChatTranslationInput } from "@tollgate/upstream";
import type { EventSourceMessage } from "eventsource-parser";
import type { StreamSink } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { parseEventStream } from "../../streaming/parse-event-stream";
import { relayStream } from "../../streaming/relay-stream";
import { streamFailure } from "../../streaming/stream-failure";
import { ChatStreamTally, tallyAdapterChatParts } from "../openai-chat/adapter-chat-parts";
import { anthropicServerToolFamily, anthropicUsageToolCalls, type BuiltInToolCalls, mergeToolCalls } from "../../accounting/built-in-tools";
import { anthropicErrorEvent } from "./anthropic-error";
import { createAnthropicUsageTap } from "./extract-anthropic-usage";
import { type AnthropicSseEvent, createOpenAIToAnthropicStream } from "./openai-stream-to-anthropic";

const encoder = new TextEncoder();

function sseFrame(event: string, data: string): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${data}\n\n`);
}

function errorFrame(kind: "stalled" | "failed", cause: unknown): Uint8Array {
  const failure = streamFailure(kind, cause);
  const error = anthropicErrorEvent(failure.status, failure.message);
  return sseFrame(error.event, error.data);
}

/**
 * An Anthropic channel's own stream, event by event as it came; usage read from message_start and
 * message_delta, server tool calls from the server_tool_use blocks as they start (and message_delta's
 * `usage.server_tool_use` counts, where larger).
 */
export function relayNativeStream(forwarded: ForwardedResponse<unknown>, sink: StreamSink): ReadableStream<Uint8Array> {
  const tap = createAnthropicUsageTap();
  const produced: string[] = [];
  const blockCalls: BuiltInToolCalls = {};
  let reportedCalls: BuiltInToolCalls = {};
  return relayStream<EventSourceMessage>(parseEventStream(forwarded.response.body!, sink.maxEventBytes), {
    frame(event) {
      if (event.event === "message_start" || event.event === "message_delta") {
        tap.observe(event.data);
        if (event.event === "message_delta") {
          try {
            reportedCalls = mergeToolCalls(reportedCalls, anthropicUsageToolCalls((JSON.parse(event.data) as { usage?: unknown }).usage));
          } catch {
            // Relayed as it came.
          }
        }
      } else if (event.event === "content_block_start") {
        try {
          const family = anthropicServerToolFamily((JSON.parse(event.data) as { content_block?: unknown }).content_block);
          if (family) blockCalls[family] = (blockCalls[family] ?? 0) + 1;
        } catch {
          // Relayed as it came.
        }
      } else if (event.event === "content_block_delta") {
        const delta = (JSON.parse(event.data) as { delta?: { text?: string; partial_json?: string } }).delta;
        produced.push(delta?.text ?? delta?.partial_json ?? "");
      }
      return sseFrame(event.event ?? "message", event.data);
    },
    errorFrame,
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) => sink.end(outcome, tap.usage, () => produced.join(""), undefined, mergeToolCalls(blockCalls, reportedCalls)),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}

/** Any other channel's stream, as OpenAI chunks from its adapter, rendered as Anthropic's events. */
export function relayTranslatedStream(
  forwarded: ForwardedResponse<ChatTranslationInput>,
  model: string,
  sink: StreamSink,
): ReadableStream<Uint8Array> {
  const tally = new ChatStreamTally();
  const parts = tallyAdapterChatParts(forwarded, sink.maxEventBytes, tally);
  return relayStream<AnthropicSseEvent>(parts.pipeThrough(createOpenAIToAnthropicStream({ model })), {
    frame: (event) => sseFrame(event.event, event.data),
    errorFrame,
    onFirstItem: () => sink.firstByte(),
    onFinish: (outcome) => sink.end(outcome, tally.usage, tally.text),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: sink.idleTimeoutMs,
  });
}
