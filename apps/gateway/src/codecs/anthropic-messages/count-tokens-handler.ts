import { TranslationError, upstreamModelFor } from "@tollgate/upstream";
import { isRecord } from "@tollgate/shared";
import { countPromptTokens, TokenCountUnavailable } from "../../accounting/count-tokens";
import { errors, type GatewayError } from "../../errors";
import type { GatewayServices } from "../../gateway-services";
import { admit } from "../../pipeline/admit";
import type { CallRecord } from "../../pipeline/call-record";
import type { EndpointCall, HandlerRow } from "../../pipeline/endpoint";
import { checkModelAllowed } from "../../policy/model-allowed";
import { channelsFor, orderChannels } from "../../routing/choose-channels";
import { forwardWithFailover } from "../../routing/forward-with-failover";
import { readWholeAnswer } from "../../routing/read-whole-answer";
import { anthropicErrorResponse } from "./anthropic-error";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";

/** Set on an answer counted by the gateway's own tokenizer rather than by Anthropic: an estimate. */
export const ESTIMATED_HEADER = "x-tollgate-estimated";

/**
 * The client's body as an OpenAI chat request, for the local count; count_tokens takes no max_tokens. What
 * only Anthropic speaks (server tools, their blocks) is counted as the request's text.
 */
function openAIBodyOf(body: Record<string, unknown>): Record<string, unknown> {
  try {
    return anthropicRequestToOpenAI({ ...body, max_tokens: 1 }) as unknown as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof TranslationError)) throw error;
    if (error.code !== "unsupported_parameter") throw errors.untranslatable(error);
    return { messages: [{ role: "user", content: JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools }) }] };
  }
}

/** Anthropic's count_tokens answer, `{"input_tokens": N}`, read back (null when it is not one). */
function inputTokensOf(text: string): number | null {
  try {
    const answer: unknown = JSON.parse(text);
    return isRecord(answer) && typeof answer.input_tokens === "number" ? answer.input_tokens : null;
  } catch {
    return null;
  }
}

/**
 * POST /v1/messages/count_tokens (Claude Code and @anthropic-ai/sdk's messages.countTokens) with the
 * rules of every call (key, IP list, requests per minute, model list) but no quota held and nothing billed
 * (the row's notBilled flag): forwarded to a channel whose adapter counts tokens itself (Anthropic's), which
 * counts exactly; when none does (or none answers), counted here with the o200k tokenizer and marked
 * estimated (x-tollgate-estimated: true), the body still Anthropic's `{"input_tokens": N}`. The body is read
 * within the limit of every /v1 body (413 beyond it); a large one is counted on the counting worker, and one
 * it cannot count in time is answered with the linear rule's figure (a quarter of its bytes), still marked
 * estimated. Each call gets a request-log row at zero cost, so that an operator sees the traffic. Errors are
 * in Anthropic's shape.
 */
async function handleCountTokens({ services, request, record, caller }: EndpointCall): Promise<Response> {
  const admission = await admit(services, record, request, "anthropic", {}, caller);
  const { model, body } = admission;
  const openAIBody = openAIBodyOf(body.value);
  checkModelAllowed(caller, model);
  const catalogResult = services.catalog.get();
  const catalog = catalogResult instanceof Promise ? await catalogResult : catalogResult;
  const { usable, listedInGroup } = channelsFor(catalog.channelsByModel.get(model), caller.group);
  if (!listedInGroup) throw errors.modelNotFound(model);
  // The model is listed: metrics name it; its price is kept by nothing (the row is notBilled, the record free).
  record.routed(catalog.prices.get(model));
  const countingChannels = orderChannels(usable.filter((channel) => channel.adapter.countTokens !== undefined));
  if (countingChannels.length > 0) {
    const counted = await countUpstream(services, record, request, countingChannels, body.value, body.text, model);
    if (counted) return counted;
  }
  const inputTokens = await countPromptTokens(openAIBody).catch((error: unknown) => {
    if (!(error instanceof TokenCountUnavailable)) throw error;
    services.log("warn", "count_tokens could not count in time; answering the linear estimate", { requestId: record.requestId });
    return Math.ceil(body.bytes / 4);
  });
  record.finish({ status: 200, usage: null });
  return Response.json({ input_tokens: inputTokens }, { headers: { ...record.answerHeaders(), [ESTIMATED_HEADER]: "true" } });
}

/** The endpoint table's row for count_tokens: a plain handler, in Anthropic's errors, never billed. */
export const countTokensRow: HandlerRow = {
  method: "POST",
  path: "/v1/messages/count_tokens",
  endpoint: "messages.count_tokens",
  handler: handleCountTokens,
  notBilled: true,
  errorResponse: (error: GatewayError, headers) => anthropicErrorResponse(error.status, error.message, { ...error.headers, ...headers }),
};

/**
 * The exact count from an Anthropic channel; null when none could answer (the caller counts locally). An
 * error that is the client's (a 400 for a malformed request) is thrown, to be answered as Anthropic's.
 */
async function countUpstream(
  services: GatewayServices,
  record: CallRecord,
  request: Request,
  channels: ReturnType<typeof orderChannels>,
  body: Record<string, unknown>,
  text: string,
  model: string,
): Promise<Response | null> {
  const version = request.headers.get("anthropic-version");
  const beta = request.headers.get("anthropic-beta");
  let forwarded;
  try {
    forwarded = await forwardWithFailover(services, record, channels, request.signal, (channel, adapter) => {
      const upstreamModel = upstreamModelFor(channel, model);
      // Only channels whose adapter counts are tried (handleCountTokens filters them).
      return { request: adapter.countTokens!({ channel, upstreamModel, body, text, version, beta }), upstreamModel, translation: null };
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    services.log("warn", "no channel counted tokens; counting locally", { requestId: record.requestId });
    return null;
  }
  const { channel, attempt, response } = forwarded;
  if (forwarded.upstreamError) {
    record.finish({ status: forwarded.upstreamError.status, usage: null, channel, upstreamModel: attempt.upstreamModel, errorCode: forwarded.upstreamError.code });
    throw forwarded.upstreamError;
  }
  const answer = await readWholeAnswer(services, forwarded, record.requestId, request.signal);
  const inputTokens = inputTokensOf(answer);
  if (inputTokens === null) {
    services.log("warn", "upstream count_tokens answer unreadable; counting locally", { requestId: record.requestId, channel: channel.id });
    return null;
  }
  record.finish({ status: 200, usage: null, channel, upstreamModel: attempt.upstreamModel });
  return Response.json({ input_tokens: inputTokens }, { headers: record.answerHeaders() });
}
