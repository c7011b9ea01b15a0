import type { TokenUsage } from "@tollgate/shared";
import { countInputTokens } from "../accounting/count-tokens";
import { errors } from "../errors";
import { buildUpstreamRequest, upstreamModelFor } from "../providers/openai-compatible/build-request";
import { extractUsage } from "../providers/openai-compatible/extract-usage";
import { mapUpstreamError } from "../providers/openai-compatible/map-upstream-error";
import { forwardWithFailover } from "../routing/forward-with-failover";
import type { CallContext } from "./call-context";

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

  const forwarded = await forwardWithFailover(context, context.request.signal, (channel, signal) => {
    const upstreamModel = upstreamModelFor(channel, context.model);
    const text = upstreamModel === context.model ? context.body!.text : JSON.stringify({ ...body, model: upstreamModel });
    return { ...buildUpstreamRequest(channel, "/embeddings", text, signal), upstreamModel };
  });
  const { response, channel, upstreamModel } = forwarded;
  const text = await response.text();
  context.markFirstByte();
  if (!response.ok) {
    const upstreamError = mapUpstreamError(response.status, text, channel);
    context.finish({ status: upstreamError.status, usage: null, channel, upstreamModel, errorCode: upstreamError.code });
    throw upstreamError;
  }
  let usage: TokenUsage | null = null;
  try {
    usage = extractUsage((JSON.parse(text) as { usage?: unknown }).usage);
  } catch {
    usage = null;
  }
  const estimated = usage === null;
  usage ??= { promptTokens: await countInputTokens(input), completionTokens: 0, cachedTokens: 0 };
  context.finish({ status: 200, usage, usageEstimated: estimated, channel, upstreamModel });
  return new Response(text, {
    status: 200,
    headers: { "content-type": "application/json", ...context.rateLimitHeaders, "x-request-id": context.requestId },
  });
}
