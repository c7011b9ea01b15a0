import { isRecord } from "@tollgate/shared";
import { upstreamModelFor } from "@tollgate/upstream";
import { errors, GatewayError } from "../../errors";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import { countPromptLocally, ESTIMATED_HEADER, type LocalCountRequest, NO_TOKENS } from "../anthropic-messages/count-tokens-codec";
import { geminiCodecBasics } from "./gemini-error";
import { parseGenerateRequest } from "./parse-generate-request";

/** The GenerateContentRequest a countTokens body counts: its `generateContentRequest`, else its `contents`. */
function countedRequest(body: Record<string, unknown>): Record<string, unknown> {
  if (body.generateContentRequest !== undefined && body.generateContentRequest !== null) {
    if (!isRecord(body.generateContentRequest)) throw errors.invalidParameter("generateContentRequest", "'generateContentRequest' must be an object.");
    return body.generateContentRequest;
  }
  return { contents: body.contents };
}

/**
 * POST /v1beta/models/{model}:countTokens (and under /v1): with the rules of every call but nothing held
 * or billed (notBilled): relayed to a channel that speaks the Gemini API, which counts exactly; when none
 * serves the model (or none answers), counted here with the o200k tokenizer and marked estimated
 * (x-tollgate-estimated: true), the body still Google's `{"totalTokens": N}`.
 */
export const geminiCountTokensCodec: Codec<LocalCountRequest, null> = {
  ...geminiCodecBasics("countTokens"),
  notBilled: true,

  serves: (channel) => channel.adapter.geminiNative !== undefined,

  parse({ body: json, model }) {
    const counted = countedRequest(json.value);
    const generate = parseGenerateRequest({ ...json, value: counted }, model, false);
    return {
      request: { model, body: json.value, text: json.text, bytes: json.bytes, openAIBody: generate.chat.body },
      maxOutputTokens: 0,
      stream: false,
    };
  },

  prepare(channel, adapter, count) {
    const upstreamModel = upstreamModelFor(channel, count.model);
    const { body, text } = count;
    // Only channels whose adapter speaks the Gemini API are routed to (serves); one that does not for this
    // model (Vertex's Claude models) is passed over as a capability gap.
    const native = adapter.geminiNative!({ channel, upstreamModel, method: "countTokens", body, text });
    if (!native) throw new GatewayError(`The model '${count.model}' is not counted by this channel.`, { status: 400, code: "unsupported_endpoint", param: "model" });
    return { request: native, upstreamModel, translation: null };
  },

  readWhole(text): WholeAnswer | null {
    try {
      const answer: unknown = JSON.parse(text);
      // Counted, not used: the call's log row shows no tokens.
      return isRecord(answer) && typeof answer.totalTokens === "number" ? { usage: NO_TOKENS, body: text } : null;
    } catch {
      return null;
    }
  },

  async answerLocally(count, record, services) {
    const totalTokens = await countPromptLocally(count.openAIBody, count.bytes, record, services);
    return Response.json({ totalTokens }, { headers: { ...record.answerHeaders(), [ESTIMATED_HEADER]: "true" } });
  },

  producedText: () => "",
  estimateUsage: async () => NO_TOKENS,
};
