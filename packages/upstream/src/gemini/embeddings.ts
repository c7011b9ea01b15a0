import type { TokenUsage } from "@tollgate/shared";
import { type AdapterChannel, TranslationError, type UpstreamHttpRequest } from "../provider-adapter";
import { bareModelName, geminiHeaders, geminiUrl } from "./upstream-endpoint";

/** OpenAI embeddings `input` as texts (Gemini and Vertex embed text only). */
export function embeddingInputs(input: unknown): string[] {
  if (typeof input === "string") return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((entry) => typeof entry === "string")) return input;
  if (Array.isArray(input) && input.length === 0) throw new TranslationError("'input' must not be empty.", "input");
  throw new TranslationError("Gemini embeds text only: 'input' must be a string or an array of strings, not tokens.", "input");
}

/** OpenAI's `dimensions` (Google's `outputDimensionality`), when given. */
export function embeddingDimensions(body: Record<string, unknown>): number | undefined {
  const dimensions = body.dimensions;
  if (dimensions === undefined || dimensions === null) return undefined;
  if (typeof dimensions !== "number" || !Number.isInteger(dimensions)) throw new TranslationError("'dimensions' must be an integer.", "dimensions");
  return dimensions;
}

/**
 * OpenAI embeddings request -> `:batchEmbedContents`, one request per input (one input is a batch of one, so
 * there is one code path). OpenAI's `dimensions` is Gemini's `outputDimensionality`.
 */
export function buildEmbeddingsRequest(input: {
  channel: AdapterChannel;
  upstreamModel: string;
  body: Record<string, unknown>;
}): UpstreamHttpRequest {
  const model = `models/${bareModelName(input.upstreamModel)}`;
  const dimensions = embeddingDimensions(input.body);
  const requests = embeddingInputs(input.body.input).map((text) => ({
    model,
    content: { parts: [{ text }] },
    ...(typeof dimensions === "number" ? { outputDimensionality: dimensions } : {}),
  }));
  return {
    url: geminiUrl(input.channel, input.upstreamModel, "batchEmbedContents"),
    headers: geminiHeaders(input.channel),
    body: JSON.stringify({ requests }),
  };
}

/** What OpenAI sends for `encoding_format: "base64"`: the vector's little-endian float32 bytes, base64. */
export function float32Base64(values: number[]): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((value, index) => view.setFloat32(index * 4, value, true));
  return Buffer.from(bytes).toString("base64");
}

/**
 * `{embeddings:[{values}]}` -> OpenAI's `{object:"list", data, model, usage}`, in base64 when the client asked
 * for it (the openai npm client asks for base64 unless told otherwise, and decodes it itself). Gemini reports
 * no token count for embeddings, so usage is null and the response carries zeros for the gateway to replace
 * with its local count.
 */
export function translateEmbeddingsResponse(
  upstreamBody: unknown,
  input: { upstreamModel: string; body: Record<string, unknown> },
): { response: Record<string, unknown>; usage: TokenUsage | null } {
  const embeddings = (upstreamBody as { embeddings?: Array<{ values?: number[] }> } | null)?.embeddings ?? [];
  const base64 = input.body.encoding_format === "base64";
  const data = embeddings.map((embedding, index) => {
    const values = embedding.values ?? [];
    return { object: "embedding", index, embedding: base64 ? float32Base64(values) : values };
  });
  return {
    response: { object: "list", data, model: input.body.model, usage: { prompt_tokens: 0, total_tokens: 0 } },
    usage: null,
  };
}
