import { errorResponse, errors } from "@tollgate/gateway/errors";
import type { Codec, WholeAnswer } from "@tollgate/gateway/pipeline/codec";
import { type ChatTranslationInput, upstreamModelFor } from "@tollgate/upstream";

interface ShoutRequest {
  model: string;
  text: string;
}

/**
 * A toy endpoint family for the "add an endpoint" recipe: POST /v1/toys/shout `{model, text}` answers
 * `{"shout": <the model's reply in capitals>}`. One codec, no line of the gateway changed: the test builds
 * the gateway with this codec's row added to the endpoint table.
 */
export const toyShoutCodec: Codec<ShoutRequest, ChatTranslationInput> = {
  endpoint: "toys.shout",
  identifiers: "openai",

  parse({ body, model }) {
    const text = body.value.text;
    if (typeof text !== "string") throw errors.missingParameter("text");
    return { request: { model, text }, maxOutputTokens: 16, stream: false };
  },

  prepare(channel, adapter, shout) {
    const upstreamModel = upstreamModelFor(channel, shout.model);
    const input: ChatTranslationInput = { channel, upstreamModel, body: { model: shout.model, messages: [{ role: "user", content: shout.text }] }, stream: false };
    return { request: adapter.buildChatRequest(input), upstreamModel, translation: input };
  },

  readWhole(text, { adapter, attempt }): WholeAnswer | null {
    try {
      const { completion, usage } = adapter.translateChatResponse(JSON.parse(text), attempt.translation);
      const reply = (completion.choices as Array<{ message: { content: string } }>)[0]?.message.content ?? "";
      return { usage, body: JSON.stringify({ shout: reply.toUpperCase() }) };
    } catch {
      return null;
    }
  },

  producedText: () => "",
  estimateUsage: async () => ({ promptTokens: 0, completionTokens: 0, cachedTokens: 0 }),
  errorResponse,
};
