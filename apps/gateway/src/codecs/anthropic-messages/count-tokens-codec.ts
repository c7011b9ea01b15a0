import { TranslationError, upstreamModelFor } from "@tollgate/upstream";
import { isRecord } from "@tollgate/shared";
import { countPromptTokens, TokenCountUnavailable } from "../../accounting/count-tokens";
import { errors } from "../../errors";
import type { GatewayServices } from "../../gateway-services";
import type { CallRecord } from "../../pipeline/call-record";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import { anthropicErrorResponse } from "./anthropic-error";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";

/** Set on an answer counted by the gateway's own tokenizer rather than by Anthropic: an estimate. */
export const ESTIMATED_HEADER = "x-tollgate-estimated";

/** A count request as the count_tokens codecs hold it: sent as it came to a channel that counts, else counted here. */
export interface LocalCountRequest {
  model: string;
  /** The client's body and its text, sent as they are to a channel that counts. */
  body: Record<string, unknown>;
  text: string;
  bytes: number;
  /** The same request as an OpenAI chat body, for the local count. */
  openAIBody: Record<string, unknown>;
}

interface CountTokensRequest extends LocalCountRequest {
  version: string | null;
  beta: string | null;
}

/** A count answer bills nothing: no tokens (the endpoint is notBilled). */
export const NO_TOKENS = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

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

/**
 * A count endpoint's local answer: the prompt counted on the counting worker, or, when it cannot count in
 * time, the linear rule's figure (a quarter of the body's bytes); the call's record finished, at no cost.
 */
export async function countPromptLocally(openAIBody: Record<string, unknown>, bytes: number, record: CallRecord, services: Pick<GatewayServices, "log">): Promise<number> {
  const tokens = await countPromptTokens(openAIBody).catch((error: unknown) => {
    if (!(error instanceof TokenCountUnavailable)) throw error;
    services.log("warn", "a token count could not be made in time; answering the linear estimate", { requestId: record.requestId, endpoint: record.endpoint });
    return Math.ceil(bytes / 4);
  });
  record.finish({ status: 200, usage: null });
  return tokens;
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
 * (notBilled): forwarded to a channel whose adapter counts tokens itself (Anthropic's), which counts
 * exactly; when none does (or none answers, or its answer is unreadable), counted here with the o200k
 * tokenizer and marked estimated (x-tollgate-estimated: true), the body still Anthropic's
 * `{"input_tokens": N}`. The body is read within the limit of every /v1 body (413 beyond it); a large one is
 * counted on the counting worker, and one it cannot count in time is answered with the linear rule's figure
 * (a quarter of its bytes), still marked estimated. Each call gets a request-log row at zero cost, so that
 * an operator sees the traffic. Errors are in Anthropic's shape.
 */
export const countTokensCodec: Codec<CountTokensRequest, null> = {
  endpoint: "messages.count_tokens",
  identifiers: "anthropic",
  notBilled: true,

  serves: (channel) => channel.adapter.countTokens !== undefined,

  parse({ body: json, model }, _services, request) {
    return {
      request: {
        model,
        body: json.value,
        text: json.text,
        bytes: json.bytes,
        openAIBody: openAIBodyOf(json.value),
        version: request.headers.get("anthropic-version"),
        beta: request.headers.get("anthropic-beta"),
      },
      maxOutputTokens: 0,
      stream: false,
    };
  },

  prepare(channel, adapter, count) {
    const upstreamModel = upstreamModelFor(channel, count.model);
    const { body, text, version, beta } = count;
    // Only channels whose adapter counts are routed to (serves).
    return { request: adapter.countTokens!({ channel, upstreamModel, body, text, version, beta }), upstreamModel, translation: null };
  },

  readWhole(text): WholeAnswer | null {
    const inputTokens = inputTokensOf(text);
    // Counted, not used: the call's log row shows no tokens.
    return inputTokens === null ? null : { usage: NO_TOKENS, body: JSON.stringify({ input_tokens: inputTokens }) };
  },

  async answerLocally(count, record, services) {
    const inputTokens = await countPromptLocally(count.openAIBody, count.bytes, record, services);
    return Response.json({ input_tokens: inputTokens }, { headers: { ...record.answerHeaders(), [ESTIMATED_HEADER]: "true" } });
  },

  producedText: () => "",
  estimateUsage: async () => NO_TOKENS,
  errorResponse: (error, headers) => anthropicErrorResponse(error.status, error.message, { ...error.headers, ...headers }),
};
