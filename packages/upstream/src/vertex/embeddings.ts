import type { TokenUsage } from "@tollgate/shared";
import { embeddingDimensions, embeddingInputs, float32Base64 } from "../gemini/embeddings";
import { type EmbeddingsTranslationInput, TranslationError, type UpstreamHttpRequest } from "../provider-adapter";
import { tokenCount } from "../shared/token-count";
import { publisherOf, vertexHeaders, vertexModelUrl } from "./vertex-endpoint";

interface VertexEmbeddingPrediction {
  embeddings?: { values?: number[]; statistics?: { token_count?: unknown } };
}

/**
 * OpenAI embeddings request -> Vertex's text embeddings (`text-embedding-005`, `gemini-embedding-001`, …):
 * `:predict` with one instance per input (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api).
 */
export function buildVertexEmbeddingsRequest(input: EmbeddingsTranslationInput): UpstreamHttpRequest {
  if (publisherOf(input.upstreamModel) !== "google") {
    throw new TranslationError("Claude models on Vertex AI do not embed.", "model", "unsupported_parameter");
  }
  const dimensions = embeddingDimensions(input.body);
  const instances = embeddingInputs(input.body.input).map((content) => ({ content }));
  return {
    url: vertexModelUrl(input.channel, input.upstreamModel, "predict"),
    headers: vertexHeaders(input.channel),
    body: JSON.stringify({ instances, ...(dimensions === undefined ? {} : { parameters: { outputDimensionality: dimensions } }) }),
  };
}

/** `{predictions:[{embeddings:{values, statistics:{token_count}}}]}` -> OpenAI's list, usage from Vertex's token counts. */
export function translateVertexEmbeddingsResponse(
  upstreamBody: unknown,
  input: { upstreamModel: string; body: Record<string, unknown> },
): { response: Record<string, unknown>; usage: TokenUsage | null } {
  const predictions = (upstreamBody as { predictions?: VertexEmbeddingPrediction[] } | null)?.predictions;
  const list = Array.isArray(predictions) ? predictions : [];
  const base64 = input.body.encoding_format === "base64";
  let promptTokens = 0;
  const data = list.map((prediction, index) => {
    const values = Array.isArray(prediction?.embeddings?.values) ? prediction.embeddings.values : [];
    promptTokens += tokenCount(prediction?.embeddings?.statistics?.token_count);
    return { object: "embedding", index, embedding: base64 ? float32Base64(values) : values };
  });
  const usage = list.length > 0 ? { promptTokens, completionTokens: 0, cachedTokens: 0 } : null;
  return { response: { object: "list", data, model: input.body.model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } }, usage };
}
