import { isRecord } from "@tollgate/shared";
import { type EmbeddingsTranslationInput, extractUsage, type GeminiMethod, TranslationError, upstreamModelFor } from "@tollgate/upstream";
import { countInputTokens } from "../../accounting/count-tokens";
import { errors, GatewayError } from "../../errors";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import { geminiCodecBasics } from "./gemini-error";

interface EmbedRequest {
  model: string;
  body: Record<string, unknown>;
  text: string;
  /** The texts embedded, one per embedding, in order (for the translation and the local count). */
  texts: string[];
  /** The OpenAI embeddings body for other channel types, or why it cannot be one. */
  openAIBody: Record<string, unknown> | null;
  openAIError: GatewayError | null;
}

interface EmbedAnswer extends WholeAnswer {
  /** The answer in Google's shape, when it was translated. */
  translated: Record<string, unknown> | null;
}

type EmbedTranslation = EmbeddingsTranslationInput | null;

/** One EmbedContentRequest's text (its parts' texts, which Google embeds as one) and its dimensionality. */
function readEmbedRequest(request: unknown, path: string): { text: string; dimensions: number | null; hints: string[] } {
  if (!isRecord(request)) throw errors.invalidParameter(path || "body", `'${path || "body"}' must be an EmbedContentRequest object.`);
  const prefix = path ? `${path}.` : "";
  const content = request.content;
  if (content === undefined || content === null) throw errors.missingParameter(`${prefix}content`);
  if (!isRecord(content) || !Array.isArray(content.parts) || content.parts.length === 0) {
    throw errors.invalidParameter(`${prefix}content`, `'${prefix}content' must be a Content object with parts.`);
  }
  const texts = content.parts.map((part, index) => {
    if (!isRecord(part) || typeof part.text !== "string") {
      throw errors.invalidParameter(`${prefix}content.parts[${index}]`, `'${prefix}content.parts[${index}]' must be a text part.`);
    }
    return part.text;
  });
  const dimensions = request.outputDimensionality;
  if (dimensions !== undefined && dimensions !== null && (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1)) {
    throw errors.invalidParameter(`${prefix}outputDimensionality`, `'${prefix}outputDimensionality' must be a positive integer.`);
  }
  const hints = ["taskType", "title"].filter((key) => request[key] !== undefined && request[key] !== null).map((key) => `${prefix}${key}`);
  return { text: texts.join("\n"), dimensions: typeof dimensions === "number" ? dimensions : null, hints };
}

/**
 * The texts as an OpenAI embeddings body. taskType and title tune Gemini's embedding models, which other
 * providers' models have no input for: such a request goes to Gemini channels only.
 */
function openAIEmbeddings(model: string, requests: ReturnType<typeof readEmbedRequest>[]): Record<string, unknown> {
  const hint = requests.flatMap((request) => request.hints)[0];
  if (hint) throw new TranslationError(`'${hint}' can be sent to Gemini channels only.`, hint, "unsupported_parameter");
  const dimensions = new Set(requests.map((request) => request.dimensions));
  if (dimensions.size > 1) throw new TranslationError("Every request of a batch must ask for the same outputDimensionality on channels other than Gemini.", "requests", "unsupported_parameter");
  const [only] = dimensions;
  return { model, input: requests.map((request) => request.text), encoding_format: "float", ...(only ? { dimensions: only } : {}) };
}

/** OpenAI's `{data: [{embedding}]}` -> the vectors in order (base64 or missing vectors are not an answer). */
function vectorsOf(answer: unknown): number[][] | null {
  if (!isRecord(answer) || !Array.isArray(answer.data)) return null;
  const data = [...answer.data].filter(isRecord).sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0));
  const vectors = data.map((entry) => entry.embedding);
  return vectors.every((vector) => Array.isArray(vector)) ? (vectors as number[][]) : null;
}

/**
 * POST /v1beta/models/{model}:embedContent and :batchEmbedContents (and under /v1): relayed as they came to
 * Gemini channels (geminiNative), sent as OpenAI embeddings to every other channel type that embeds, the
 * answer in Google's shape either way; billed on the prompt tokens (counted locally where, as Gemini's, the
 * upstream reports none).
 */
function embedContentCodec(method: Extract<GeminiMethod, "embedContent" | "batchEmbedContents">): Codec<EmbedRequest, EmbedTranslation, EmbedAnswer> {
  const batch = method === "batchEmbedContents";
  return {
    ...geminiCodecBasics(method),
    timesErrorAnswers: true,

    parse({ body: json, model }) {
      let requests: ReturnType<typeof readEmbedRequest>[];
      if (batch) {
        const list = json.value.requests;
        if (list === undefined || list === null) throw errors.missingParameter("requests");
        if (!Array.isArray(list) || list.length === 0) throw errors.invalidParameter("requests", "'requests' must be a non-empty array.");
        requests = list.map((entry, index) => readEmbedRequest(entry, `requests[${index}]`));
      } else requests = [readEmbedRequest(json.value, "")];
      let openAIBody: Record<string, unknown> | null = null;
      let openAIError: GatewayError | null = null;
      try {
        openAIBody = openAIEmbeddings(model, requests);
      } catch (error) {
        if (!(error instanceof TranslationError)) throw error;
        openAIError = errors.untranslatable(error);
      }
      const texts = requests.map((request) => request.text);
      return { request: { model, body: json.value, text: json.text, texts, openAIBody, openAIError }, maxOutputTokens: 0, stream: false };
    },

    prepare(channel, adapter, embed) {
      const upstreamModel = upstreamModelFor(channel, embed.model);
      const native = adapter.geminiNative?.({ channel, upstreamModel, method, body: embed.body, text: embed.text }) ?? null;
      if (native) return { request: native, upstreamModel, translation: null };
      if (!adapter.buildEmbeddingsRequest) {
        throw new GatewayError(`The model '${embed.model}' does not support embeddings.`, { status: 400, code: "unsupported_endpoint", param: "model" });
      }
      if (embed.openAIError) throw embed.openAIError;
      const input: EmbeddingsTranslationInput = { channel, upstreamModel, body: embed.openAIBody! };
      try {
        return { request: adapter.buildEmbeddingsRequest(input), upstreamModel, translation: input };
      } catch (error) {
        if (error instanceof TranslationError) throw errors.untranslatable(error);
        throw error;
      }
    },

    readWhole(text, { adapter, attempt }) {
      try {
        const json: unknown = JSON.parse(text);
        if (attempt.translation === null) return { usage: null, translated: null, body: text };
        const translated = adapter.translateEmbeddingsResponse ? adapter.translateEmbeddingsResponse(json, attempt.translation) : null;
        const vectors = vectorsOf(translated ? translated.response : json);
        if (!vectors) return null;
        const usage = translated ? translated.usage : extractUsage((json as { usage?: unknown }).usage);
        const answer = batch ? { embeddings: vectors.map((values) => ({ values })) } : { embedding: { values: vectors[0] ?? [] } };
        return { usage, translated: answer, body: text };
      } catch {
        return null;
      }
    },

    renderWhole: (answer) => (answer.translated ? JSON.stringify(answer.translated) : answer.body),

    producedText: () => "",

    async estimateUsage(embed) {
      return { promptTokens: await countInputTokens(embed.texts), completionTokens: 0, cachedTokens: 0 };
    },

  };
}

export const geminiEmbedContentCodec = embedContentCodec("embedContent");
export const geminiBatchEmbedContentsCodec = embedContentCodec("batchEmbedContents");
