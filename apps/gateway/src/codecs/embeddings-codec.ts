import { type EmbeddingsTranslationInput, extractUsage, upstreamModelFor } from "@tollgate/upstream";
import { countInputTokens } from "../accounting/count-tokens";
import { errorResponse, errors, GatewayError } from "../errors";
import type { Codec, WholeAnswer } from "../pipeline/codec";

interface EmbeddingsRequest {
  body: Record<string, unknown>;
  text: string;
  model: string;
}

interface EmbeddingsAnswer extends WholeAnswer {
  /** An adapter's translation of the upstream's answer to OpenAI's shape; null when the upstream's body is relayed. */
  translated: Record<string, unknown> | null;
}

/** POST /v1/embeddings: relayed untouched (encoding_format included) where the upstream speaks OpenAI's format, billed on prompt tokens. */
export const embeddingsCodec: Codec<EmbeddingsRequest, EmbeddingsTranslationInput, EmbeddingsAnswer> = {
  endpoint: "embeddings",
  cacheable: true,
  identifiers: "openai",
  timesErrorAnswers: true,

  parse({ body: json, model }) {
    const input = json.value.input;
    if (input === undefined || input === null) throw errors.missingParameter("input");
    if (typeof input !== "string" && !Array.isArray(input)) {
      throw errors.invalidParameter("input", "'input' must be a string or an array of strings or token arrays.");
    }
    return { request: { body: json.value, text: json.text, model }, maxOutputTokens: 0, stream: false };
  },

  prepare(channel, adapter, embeddings) {
    if (!adapter.buildEmbeddingsRequest) {
      throw new GatewayError(`The model '${embeddings.model}' does not support embeddings.`, {
        status: 400,
        code: "unsupported_endpoint",
        param: "model",
      });
    }
    const upstreamModel = upstreamModelFor(channel, embeddings.model);
    const input: EmbeddingsTranslationInput = { channel, upstreamModel, body: embeddings.body, text: embeddings.text };
    return { request: adapter.buildEmbeddingsRequest(input), upstreamModel, translation: input };
  },

  readWhole(text, { adapter, attempt }) {
    try {
      const json = JSON.parse(text);
      if (!adapter.translateEmbeddingsResponse) return { usage: extractUsage((json as { usage?: unknown }).usage), translated: null, body: text };
      const translated = adapter.translateEmbeddingsResponse(json, attempt.translation);
      return { usage: translated.usage, translated: translated.response, body: text };
    } catch {
      return { usage: null, translated: null, body: text };
    }
  },

  renderWhole(answer, usage, estimated) {
    if (!answer.translated) return answer.body;
    // Upstreams such as Gemini report no token count: the client sees the count it was billed for.
    if (estimated) answer.translated.usage = { prompt_tokens: usage.promptTokens, total_tokens: usage.promptTokens };
    return JSON.stringify(answer.translated);
  },

  producedText: () => "",

  async estimateUsage(embeddings) {
    return { promptTokens: await countInputTokens(embeddings.body.input), completionTokens: 0, cachedTokens: 0 };
  },

  errorResponse,
};
