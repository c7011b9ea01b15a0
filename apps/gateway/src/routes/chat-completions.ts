import type { TokenUsage } from "@tollgate/shared";
import { errors, GatewayError } from "../errors";
import { adapterFor } from "../providers";
import { extractUsage } from "../providers/openai-compatible/extract-usage";
import { type ForwardedResponse, forwardWithFailover } from "../routing/forward-with-failover";
import { eventData } from "../streaming/event-data";
import { parseEventStream, relayChatStream } from "../streaming/relay-chat-stream";
import type { CallContext } from "./call-context";
import { type ChatRequestShape, estimateUsage, prepareChatAttempt, producedText, translationInput } from "./chat-attempt";

function positiveInteger(value: unknown, param: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw errors.invalidParameter(param, `'${param}' must be a positive integer.`);
  }
  return value;
}

/** Checks the endpoint's own fields and holds quota for the worst case. */
async function admitChat(context: CallContext, path: ChatRequestShape["path"]): Promise<ChatRequestShape> {
  await context.admit();
  const body = context.body!.value;
  if (path === "/chat/completions") {
    if (body.messages === undefined || body.messages === null) throw errors.missingParameter("messages");
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      throw errors.invalidParameter("messages", "'messages' must be a non-empty array.");
    }
  } else if (body.prompt === undefined || body.prompt === null) {
    throw errors.missingParameter("prompt");
  }
  const maxTokens =
    positiveInteger(body.max_completion_tokens, "max_completion_tokens") ?? positiveInteger(body.max_tokens, "max_tokens");
  const stream = body.stream === true;
  const settingsResult = context.services.settings.get();
  const settings = settingsResult instanceof Promise ? await settingsResult : settingsResult;
  const choices = typeof body.n === "number" && body.n > 1 ? body.n : 1;
  await context.route((maxTokens ?? settings.reservationDefaultMaxTokens) * choices);
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  return {
    body,
    text: context.body!.text,
    model: context.model,
    stream,
    clientWantsUsage: stream && streamOptions?.include_usage === true,
    path,
  };
}

/** POST /v1/chat/completions: streamed and not, to every channel type. */
export function handleChatCompletions(context: CallContext): Promise<Response> {
  return handleCompletionFamily(context, "/chat/completions");
}

/** POST /v1/completions (legacy text completions): relayed to OpenAI-compatible channels. */
export function handleTextCompletions(context: CallContext): Promise<Response> {
  return handleCompletionFamily(context, "/completions");
}

async function handleCompletionFamily(context: CallContext, path: ChatRequestShape["path"]): Promise<Response> {
  const shape = await admitChat(context, path);
  const clientSignal = context.request.signal;
  let forwarded: ForwardedResponse;
  try {
    forwarded = await forwardWithFailover(context, clientSignal, (channel, signal) => prepareChatAttempt(channel, shape, signal));
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : errors.upstreamUnreachable();
    context.finish({ status: clientSignal.aborted ? 499 : gatewayError.status, usage: null, errorCode: gatewayError.code, stream: shape.stream });
    throw gatewayError;
  }
  const { response, channel, upstreamModel } = forwarded;
  if (!response.ok) {
    const upstreamError = forwarded.attempt.mapError(response.status, await response.text().catch(() => ""));
    context.finish({ status: upstreamError.status, usage: null, channel, upstreamModel, errorCode: upstreamError.code, stream: shape.stream });
    throw upstreamError;
  }
  const headers = { ...context.rateLimitHeaders, "x-request-id": context.requestId };
  const isEventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  if (shape.stream && isEventStream && response.body) return relay(context, shape, forwarded, headers);
  return answerWhole(context, shape, forwarded, headers);
}

async function answerWhole(context: CallContext, shape: ChatRequestShape, forwarded: ForwardedResponse, headers: Record<string, string>): Promise<Response> {
  const { response, channel, upstreamModel } = forwarded;
  const text = await response.text();
  context.markFirstByte();
  const adapter = adapterFor(channel.type);
  let usage: TokenUsage | null = null;
  let answer = text;
  let parsed: { usage?: unknown; choices?: Array<{ message?: Record<string, unknown> }> } | null = null;
  try {
    const json = JSON.parse(text);
    if (adapter) {
      const translated = adapter.translateChatResponse(json, translationInput(channel, shape, upstreamModel));
      parsed = translated.completion as unknown as typeof parsed;
      usage = translated.usage;
      answer = JSON.stringify(translated.completion);
    } else {
      parsed = json;
      usage = extractUsage(json.usage);
    }
  } catch {
    if (adapter) {
      const error = errors.upstreamUnreachable();
      context.finish({ status: 502, usage: null, channel, upstreamModel, errorCode: "upstream_bad_response" });
      throw error;
    }
  }
  const estimated = usage === null;
  usage ??= await estimateUsage(shape.body, (parsed?.choices ?? []).map((choice) => producedText(choice.message ?? choice)).join(""));
  context.finish({ status: 200, usage, usageEstimated: estimated, channel, upstreamModel, stream: false });
  return new Response(answer, { status: 200, headers: { "content-type": "application/json", ...headers } });
}

function relay(context: CallContext, shape: ChatRequestShape, forwarded: ForwardedResponse, headers: Record<string, string>): Response {
  const { response, channel, upstreamModel } = forwarded;
  const clientSignal = context.request.signal;
  const adapter = adapterFor(channel.type);
  let upstreamUsage: TokenUsage | null = null;
  const produced: string[] = [];
  // Relayed events are kept as their SSE text and parsed only if the upstream never reports usage.
  const forwardedTexts: string[] = [];
  const textOfChunk = (chunk: Record<string, unknown>) => {
    const choices = chunk.choices as Array<{ delta?: Record<string, unknown>; text?: string }> | undefined;
    if (!choices) return;
    for (const choice of choices) {
      const text = choice.delta ? producedText(choice.delta) : (choice.text ?? "");
      if (text) produced.push(text);
    }
  };
  const source = adapter
    ? {
        chunks: parseEventStream(response.body!).pipeThrough(
          adapter.createChatStreamTransformer(translationInput(channel, shape, upstreamModel), (usage) => {
            upstreamUsage = usage;
          }),
        ),
      }
    : { body: response.body! };
  const relayed = relayChatStream(source, {
    forwardUsageChunk: shape.clientWantsUsage,
    abortUpstream: forwarded.abort,
    idleTimeoutMs: channel.config.idleTimeoutMs ?? context.services.options.streamIdleTimeoutMs,
    tap: {
      onFirstEvent: () => context.markFirstByte(),
      onChunk(chunk) {
        if (chunk.usage) upstreamUsage = extractUsage(chunk.usage) ?? upstreamUsage;
        textOfChunk(chunk);
      },
      onRawText(text) {
        forwardedTexts.push(text);
      },
      onFinish(reported) {
        // Aborting the upstream for a departed client surfaces as a read error: it is still a cancel.
        const outcome = reported !== "completed" && clientSignal.aborted ? "cancelled" : reported;
        const status = outcome === "completed" ? 200 : outcome === "cancelled" ? 499 : outcome === "stalled" ? 504 : 502;
        const errorCode =
          outcome === "completed" ? null : outcome === "cancelled" ? "client_closed" : outcome === "stalled" ? "upstream_idle_timeout" : "upstream_stream_error";
        if (upstreamUsage) {
          context.finish({ status, usage: upstreamUsage, channel, upstreamModel, errorCode, stream: true });
          return;
        }
        // No usage from the upstream (cut short, or a server that never sends it): bill what was produced.
        for (const data of eventData(forwardedTexts)) {
          try {
            textOfChunk(JSON.parse(data));
          } catch {
            // Not JSON ([DONE], a vendor's comment): nothing the model produced.
          }
        }
        estimateUsage(shape.body, produced.join("")).then(
          (usage) => context.finish({ status, usage, usageEstimated: true, channel, upstreamModel, errorCode, stream: true }),
          () => context.finish({ status, usage: null, channel, upstreamModel, errorCode, stream: true }),
        );
      },
    },
  });
  // A client that goes away cancels `relayed`, which aborts the upstream call (as does forwardWithFailover's
  // listener on the client's signal, left in place for the life of the call).
  return new Response(relayed, {
    status: 200,
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...headers },
  });
}
