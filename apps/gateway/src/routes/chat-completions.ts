import type { TokenUsage } from "@tollgate/shared";
import { countPromptTokens, countTextTokens } from "../accounting/count-tokens";
import { errors, GatewayError } from "../errors";
import { buildUpstreamRequest, upstreamModelFor } from "../providers/openai-compatible/build-request";
import { extractUsage } from "../providers/openai-compatible/extract-usage";
import { mapUpstreamError } from "../providers/openai-compatible/map-upstream-error";
import { forwardWithFailover } from "../routing/forward-with-failover";
import { relayChatStream } from "../streaming/relay-chat-stream";
import type { CallContext } from "./call-context";

function positiveInteger(value: unknown, param: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw errors.invalidParameter(param, `'${param}' must be a positive integer.`);
  }
  return value;
}

/** Text the model produced in one choice delta or message: content, reasoning and tool-call arguments. */
function producedText(part: Record<string, unknown> | undefined): string {
  if (!part) return "";
  let text = "";
  if (typeof part.content === "string") text += part.content;
  if (typeof part.reasoning_content === "string") text += part.reasoning_content;
  if (Array.isArray(part.tool_calls)) {
    for (const call of part.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) {
      text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
    }
  }
  return text;
}

async function estimateUsage(body: Record<string, unknown>, completionText: string): Promise<TokenUsage> {
  return {
    promptTokens: await countPromptTokens(body),
    completionTokens: await countTextTokens(completionText),
    cachedTokens: 0,
  };
}

/** POST /v1/chat/completions: streamed and not, relayed to OpenAI-compatible channels. */
export async function handleChatCompletions(context: CallContext): Promise<Response> {
  await context.admit();
  const body = context.body!.value;
  if (body.messages === undefined || body.messages === null) throw errors.missingParameter("messages");
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw errors.invalidParameter("messages", "'messages' must be a non-empty array.");
  }
  const maxTokens = positiveInteger(body.max_completion_tokens, "max_completion_tokens") ?? positiveInteger(body.max_tokens, "max_tokens");
  const stream = body.stream === true;
  const settingsResult = context.services.settings.get();
  const settings = settingsResult instanceof Promise ? await settingsResult : settingsResult;
  const choices = typeof body.n === "number" && body.n > 1 ? body.n : 1;
  await context.route((maxTokens ?? settings.reservationDefaultMaxTokens) * choices);

  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
  const clientWantsUsage = stream && streamOptions?.include_usage === true;
  const clientSignal = context.request.signal;

  let forwarded: Awaited<ReturnType<typeof forwardWithFailover>>;
  try {
    forwarded = await forwardWithFailover(context, clientSignal, (channel, signal) => {
      const upstreamModel = upstreamModelFor(channel, context.model);
      let text = context.body!.text;
      if (upstreamModel !== context.model || (stream && !clientWantsUsage)) {
        // Re-serialise only when something must change: the model name, or asking for the usage chunk.
        const outgoing: Record<string, unknown> = { ...body, model: upstreamModel };
        if (stream) outgoing.stream_options = { ...streamOptions, include_usage: true };
        text = JSON.stringify(outgoing);
      }
      return { ...buildUpstreamRequest(channel, "/chat/completions", text, signal), upstreamModel };
    });
  } catch (error) {
    const gatewayError = error instanceof GatewayError ? error : errors.upstreamUnreachable();
    context.finish({ status: clientSignal.aborted ? 499 : gatewayError.status, usage: null, errorCode: gatewayError.code, stream });
    throw gatewayError;
  }
  const { response, channel, upstreamModel } = forwarded;

  if (!response.ok) {
    const upstreamError = mapUpstreamError(response.status, await response.text().catch(() => ""), channel);
    context.finish({ status: upstreamError.status, usage: null, channel, upstreamModel, errorCode: upstreamError.code, stream });
    throw upstreamError;
  }

  const responseHeaders = { ...context.rateLimitHeaders, "x-request-id": context.requestId };
  const isEventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");

  if (!stream || !isEventStream || !response.body) {
    const text = await response.text();
    context.markFirstByte();
    let usage: TokenUsage | null = null;
    let estimated = false;
    try {
      const parsed = JSON.parse(text) as { usage?: unknown; choices?: Array<{ message?: Record<string, unknown> }> };
      usage = extractUsage(parsed.usage);
      if (!usage) {
        estimated = true;
        usage = await estimateUsage(body, (parsed.choices ?? []).map((choice) => producedText(choice.message)).join(""));
      }
    } catch {
      estimated = true;
      usage = await estimateUsage(body, "");
    }
    context.finish({ status: 200, usage, usageEstimated: estimated, channel, upstreamModel, stream: false });
    return new Response(text, { status: 200, headers: { "content-type": "application/json", ...responseHeaders } });
  }

  let upstreamUsage: TokenUsage | null = null;
  const produced: string[] = [];
  const relayed = relayChatStream(response.body, {
    forwardUsageChunk: clientWantsUsage,
    abortUpstream: forwarded.abort,
    tap: {
      onFirstEvent: () => context.markFirstByte(),
      onChunk(chunk) {
        if (chunk.usage) upstreamUsage = extractUsage(chunk.usage) ?? upstreamUsage;
        const choicesOfChunk = chunk.choices as Array<{ delta?: Record<string, unknown> }> | undefined;
        if (choicesOfChunk) for (const choice of choicesOfChunk) {
          const text = producedText(choice.delta);
          if (text) produced.push(text);
        }
      },
      onFinish(reported) {
        // Aborting the upstream for a departed client surfaces as a read error: it is still a cancel.
        const outcome = reported !== "completed" && clientSignal.aborted ? "cancelled" : reported;
        const status = outcome === "completed" ? 200 : outcome === "cancelled" ? 499 : 502;
        const errorCode = outcome === "completed" ? null : outcome === "cancelled" ? "client_closed" : "upstream_stream_error";
        if (upstreamUsage) {
          context.finish({ status, usage: upstreamUsage, channel, upstreamModel, errorCode, stream: true });
          return;
        }
        // No usage from the upstream (cut short, or a server that never sends it): bill what was produced.
        estimateUsage(body, produced.join("")).then(
          (usage) => context.finish({ status, usage, usageEstimated: true, channel, upstreamModel, errorCode, stream: true }),
          () => context.finish({ status, usage: null, channel, upstreamModel, errorCode, stream: true }),
        );
      },
    },
  });
  clientSignal.addEventListener("abort", () => forwarded.abort(), { once: true });
  return new Response(relayed, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...responseHeaders,
    },
  });
}
