import type { TokenUsage } from "@tollgate/shared";
import { countInputTokens } from "../accounting/count-tokens";
import { errors, GatewayError } from "../errors";
import { adapterFor, gatewayErrorFromTranslated } from "../providers";
import { buildUpstreamRequest, upstreamModelFor } from "../providers/openai-compatible/build-request";
import { extractUsage } from "../providers/openai-compatible/extract-usage";
import { mapUpstreamError } from "../providers/openai-compatible/map-upstream-error";
import type { RoutableChannel } from "../routing/channel-catalog";
import { forwardWithFailover, type UpstreamAttempt } from "../routing/forward-with-failover";
import type { CallContext } from "./call-context";

function adapterChannel(channel: RoutableChannel) {
  return { baseUrl: channel.baseUrl, apiKey: channel.apiKey, config: channel.config as Record<string, unknown> };
}

function prepareEmbeddingsAttempt(channel: RoutableChannel, context: CallContext, signal: AbortSignal): UpstreamAttempt {
  const body = context.body!.value;
  const upstreamModel = upstreamModelFor(channel, context.model);
  const adapter = adapterFor(channel.type);
  if (!adapter) {
    const text = upstreamModel === context.model ? context.body!.text : JSON.stringify({ ...body, model: upstreamModel });
    return {
      ...buildUpstreamRequest(channel, "/embeddings", text, signal),
      upstreamModel,
      mapError: (status, bodyText) => mapUpstreamError(status, bodyText, channel),
    };
  }
  if (!adapter.buildEmbeddingsRequest) {
    throw new GatewayError(`The model '${context.model}' does not support embeddings.`, {
      status: 400,
      code: "unsupported_endpoint",
      param: "model",
    });
  }
  const request = adapter.buildEmbeddingsRequest({ channel: adapterChannel(channel), upstreamModel, body });
  return {
    url: request.url,
    init: { method: "POST", headers: request.headers, body: request.body, signal },
    upstreamModel,
    mapError: (status, bodyText) => gatewayErrorFromTranslated(adapter.mapError(status, bodyText, adapterChannel(channel))),
  };
}

/** POST /v1/embeddings: relayed untouched (encoding_format included), billed on prompt tokens. */
export async function handleEmbeddings(context: CallContext): Promise<Response> {
  await context.admit();
  const body = context.body!.value;
  const input = body.input;
  if (input === undefined || input === null) throw errors.missingParameter("input");
  if (typeof input !== "string" && !Array.isArray(input)) {
    throw errors.invalidParameter("input", "'input' must be a string or an array of strings or token arrays.");
  }
  await context.route(0);

  const forwarded = await forwardWithFailover(context, context.request.signal, (channel, signal) =>
    prepareEmbeddingsAttempt(channel, context, signal),
  );
  const { response, channel, upstreamModel } = forwarded;
  let text = await response.text();
  context.markFirstByte();
  if (!response.ok) {
    const upstreamError = forwarded.attempt.mapError(response.status, text);
    context.finish({ status: upstreamError.status, usage: null, channel, upstreamModel, errorCode: upstreamError.code });
    throw upstreamError;
  }
  let usage: TokenUsage | null = null;
  let translatedResponse: Record<string, unknown> | null = null;
  try {
    const json = JSON.parse(text);
    const adapter = adapterFor(channel.type);
    if (adapter?.translateEmbeddingsResponse) {
      const translated = adapter.translateEmbeddingsResponse(json, { upstreamModel, body });
      translatedResponse = translated.response;
      usage = translated.usage;
    } else {
      usage = extractUsage((json as { usage?: unknown }).usage);
    }
  } catch {
    usage = null;
  }
  const estimated = usage === null;
  usage ??= { promptTokens: await countInputTokens(input), completionTokens: 0, cachedTokens: 0 };
  if (translatedResponse) {
    // Upstreams such as Gemini report no token count: the client sees the count it was billed for.
    if (estimated) translatedResponse.usage = { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens };
    text = JSON.stringify(translatedResponse);
  }
  context.finish({ status: 200, usage, usageEstimated: estimated, channel, upstreamModel });
  return new Response(text, {
    status: 200,
    headers: { "content-type": "application/json", ...context.rateLimitHeaders, "x-request-id": context.requestId },
  });
}
