import type { TokenUsage } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import { errors, GatewayError } from "../errors";
import { createAnthropicUsageTap, extractAnthropicUsage } from "../messages-api/extract-anthropic-usage";
import { anthropicErrorEvent } from "../messages-api/anthropic-error";
import { anthropicRequestToOpenAI } from "../messages-api/anthropic-request-to-openai";
import { openAIResponseToAnthropic } from "../messages-api/openai-response-to-anthropic";
import { type AnthropicSseEvent, createOpenAIToAnthropicStream } from "../messages-api/openai-stream-to-anthropic";
import { adapterFor, gatewayErrorFromTranslated } from "../providers";
import { anthropicAdapter } from "../providers/anthropic";
import { anthropicVersion, messagesUrl } from "../providers/anthropic/build-request";
import { upstreamModelFor } from "../providers/openai-compatible/build-request";
import { extractUsage } from "../providers/openai-compatible/extract-usage";
import { TranslationError } from "../providers/provider-adapter";
import type { RoutableChannel } from "../routing/channel-catalog";
import { type ForwardedResponse, forwardWithFailover, type UpstreamAttempt } from "../routing/forward-with-failover";
import { parseChatChunks, parseEventStream } from "../streaming/relay-chat-stream";
import { relayStream, type StreamOutcome } from "../streaming/relay-stream";
import type { CallContext } from "./call-context";
import { type ChatRequestShape, estimateUsage, prepareChatAttempt, producedText, translationInput } from "./chat-attempt";

const encoder = new TextEncoder();

function sseFrame(event: string, data: string): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${data}\n\n`);
}

/** Native path: the client's Anthropic body goes to an Anthropic channel as is (model mapped). */
function prepareNativeAttempt(channel: RoutableChannel, context: CallContext, signal: AbortSignal): UpstreamAttempt {
  const body = context.body!.value;
  const upstreamModel = upstreamModelFor(channel, context.model);
  const text = upstreamModel === context.model ? context.body!.text : JSON.stringify({ ...body, model: upstreamModel });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": channel.apiKey,
    "anthropic-version": context.request.headers.get("anthropic-version") ?? anthropicVersion,
  };
  const beta = context.request.headers.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  const adapterChannel = { baseUrl: channel.baseUrl, apiKey: channel.apiKey, config: channel.config as Record<string, unknown> };
  return {
    url: messagesUrl(channel.baseUrl),
    init: { method: "POST", headers: { ...headers, ...channel.config.headers }, body: text, signal },
    upstreamModel,
    mapError: (status, bodyText) => gatewayErrorFromTranslated(anthropicAdapter.mapError(status, bodyText, adapterChannel)),
  };
}

function outcomeStatus(outcome: StreamOutcome): { status: number; errorCode: string | null } {
  if (outcome === "completed") return { status: 200, errorCode: null };
  if (outcome === "cancelled") return { status: 499, errorCode: "client_closed" };
  if (outcome === "stalled") return { status: 504, errorCode: "upstream_idle_timeout" };
  return { status: 502, errorCode: "upstream_stream_error" };
}

/**
 * POST /v1/messages in Anthropic's own format (the @anthropic-ai/sdk client, Claude Code), with the same
 * tokens, rules and accounting as /v1/chat/completions: natively to Anthropic channels, translated through
 * the chat-completions format to every other channel type.
 */
export async function handleMessages(context: CallContext): Promise<Response> {
  await context.admit();
  const body = context.body!.value;
  let openAIBody: Record<string, unknown>;
  try {
    openAIBody = anthropicRequestToOpenAI(body) as unknown as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TranslationError) throw errors.invalidParameter(error.param ?? "body", error.message);
    throw error;
  }
  await context.route(typeof body.max_tokens === "number" ? body.max_tokens : 4096);
  const stream = body.stream === true;
  const shape: ChatRequestShape = {
    body: openAIBody,
    text: JSON.stringify(openAIBody),
    model: context.model,
    stream,
    clientWantsUsage: true,
    path: "/chat/completions",
  };
  const clientSignal = context.request.signal;
  let forwarded: ForwardedResponse;
  try {
    forwarded = await forwardWithFailover(context, clientSignal, (channel, signal) =>
      channel.type === "anthropic" ? prepareNativeAttempt(channel, context, signal) : prepareChatAttempt(channel, shape, signal),
    );
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : errors.upstreamUnreachable();
    context.finish({ status: clientSignal.aborted ? 499 : gatewayError.status, usage: null, errorCode: gatewayError.code, stream });
    throw gatewayError;
  }
  const { response, channel, upstreamModel } = forwarded;
  if (!response.ok) {
    const upstreamError = forwarded.attempt.mapError(response.status, await response.text().catch(() => ""));
    context.finish({ status: upstreamError.status, usage: null, channel, upstreamModel, errorCode: upstreamError.code, stream });
    throw upstreamError;
  }
  const headers = { ...context.rateLimitHeaders, "x-request-id": context.requestId };
  const native = channel.type === "anthropic";
  const isEventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  if (stream && isEventStream && response.body) {
    return native ? relayNative(context, forwarded, headers) : relayTranslated(context, shape, forwarded, headers);
  }

  const text = await response.text();
  context.markFirstByte();
  let answer: string;
  let usage: TokenUsage | null;
  let produced = "";
  try {
    const json = JSON.parse(text);
    if (native) {
      answer = text;
      usage = extractAnthropicUsage(json);
    } else {
      const adapter = adapterFor(channel.type);
      const completion = adapter ? adapter.translateChatResponse(json, translationInput(channel, shape, upstreamModel)).completion : json;
      usage = extractUsage((completion as { usage?: unknown }).usage);
      produced = ((completion as { choices?: Array<{ message?: Record<string, unknown> }> }).choices ?? [])
        .map((choice) => producedText(choice.message))
        .join("");
      answer = JSON.stringify(openAIResponseToAnthropic(completion, { model: context.model }));
    }
  } catch {
    context.finish({ status: 502, usage: null, channel, upstreamModel, errorCode: "upstream_bad_response" });
    throw errors.upstreamUnreachable();
  }
  const estimated = usage === null;
  usage ??= await estimateUsage(openAIBody, produced);
  context.finish({ status: 200, usage, usageEstimated: estimated, channel, upstreamModel });
  return new Response(answer, { status: 200, headers: { "content-type": "application/json", ...headers } });
}

function streamHeaders(headers: Record<string, string>) {
  return { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...headers };
}

/** Settles a stream: the upstream's usage when it came, otherwise a local count of what was produced. */
function settleStream(context: CallContext, forwarded: ForwardedResponse, openAIBody: Record<string, unknown>) {
  return (reported: StreamOutcome, usage: TokenUsage | null, produced: string) => {
    const outcome = reported !== "completed" && context.request.signal.aborted ? "cancelled" : reported;
    const { status, errorCode } = outcomeStatus(outcome);
    const base = { status, channel: forwarded.channel, upstreamModel: forwarded.upstreamModel, errorCode, stream: true };
    if (usage) {
      context.finish({ ...base, usage });
      return;
    }
    estimateUsage(openAIBody, produced).then(
      (estimate) => context.finish({ ...base, usage: estimate, usageEstimated: true }),
      () => context.finish({ ...base, usage: null }),
    );
  };
}

function relayNative(context: CallContext, forwarded: ForwardedResponse, headers: Record<string, string>): Response {
  const tap = createAnthropicUsageTap();
  const produced: string[] = [];
  const settle = settleStream(context, forwarded, anthropicRequestToOpenAI(context.body!.value) as unknown as Record<string, unknown>);
  const relayed = relayStream<EventSourceMessage>(parseEventStream(forwarded.response.body!), {
    frame(event) {
      if (event.event === "message_start" || event.event === "message_delta") tap.observe(event.data);
      else if (event.event === "content_block_delta") {
        const delta = (JSON.parse(event.data) as { delta?: { text?: string; partial_json?: string } }).delta;
        produced.push(delta?.text ?? delta?.partial_json ?? "");
      }
      return sseFrame(event.event ?? "message", event.data);
    },
    errorFrame: (kind) => {
      const error = anthropicErrorEvent(kind === "stalled" ? 504 : 502, kind === "stalled" ? "The upstream stopped sending data." : "The upstream stream was interrupted.");
      return sseFrame(error.event, error.data);
    },
    onFirstItem: () => context.markFirstByte(),
    onFinish: (outcome) => settle(outcome, tap.usage, produced.join("")),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: forwarded.channel.config.idleTimeoutMs ?? context.services.options.streamIdleTimeoutMs,
  });
  context.request.signal.addEventListener("abort", () => forwarded.abort(), { once: true });
  return new Response(relayed, { status: 200, headers: streamHeaders(headers) });
}

function relayTranslated(context: CallContext, shape: ChatRequestShape, forwarded: ForwardedResponse, headers: Record<string, string>): Response {
  const { channel, upstreamModel } = forwarded;
  let usage: TokenUsage | null = null;
  const produced: string[] = [];
  const events = parseEventStream(forwarded.response.body!);
  const adapter = adapterFor(channel.type);
  const chunks = adapter
    ? events.pipeThrough(adapter.createChatStreamTransformer(translationInput(channel, shape, upstreamModel), (reported) => (usage = reported)))
    : parseChatChunks(events);
  const tapped = chunks.pipeThrough(
    new TransformStream<Record<string, unknown>, Record<string, unknown>>({
      transform(chunk, controller) {
        if (chunk.usage) usage = extractUsage(chunk.usage) ?? usage;
        for (const choice of (chunk.choices as Array<{ delta?: Record<string, unknown> }> | undefined) ?? []) {
          const text = producedText(choice.delta);
          if (text) produced.push(text);
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const anthropicEvents = tapped.pipeThrough(createOpenAIToAnthropicStream({ model: context.model }));
  const settle = settleStream(context, forwarded, shape.body);
  const relayed = relayStream<AnthropicSseEvent>(anthropicEvents, {
    frame: (event) => sseFrame(event.event, event.data),
    errorFrame: (kind) => {
      const error = anthropicErrorEvent(kind === "stalled" ? 504 : 502, kind === "stalled" ? "The upstream stopped sending data." : "The upstream stream was interrupted.");
      return sseFrame(error.event, error.data);
    },
    onFirstItem: () => context.markFirstByte(),
    onFinish: (outcome) => settle(outcome, usage, produced.join("")),
    abortUpstream: forwarded.abort,
    idleTimeoutMs: channel.config.idleTimeoutMs ?? context.services.options.streamIdleTimeoutMs,
  });
  context.request.signal.addEventListener("abort", () => forwarded.abort(), { once: true });
  return new Response(relayed, { status: 200, headers: streamHeaders(headers) });
}
