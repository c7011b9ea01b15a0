import type { EndpointHandler, EndpointRow } from "../../pipeline/endpoint";
import { geminiBatchEmbedContentsCodec, geminiEmbedContentCodec } from "./embed-content-codec";
import { geminiCountTokensCodec } from "./count-tokens-codec";
import { geminiGenerateContentCodec, geminiStreamGenerateContentCodec } from "./generate-content-codec";
import { geminiErrorResponse } from "./gemini-error";

const METHODS = [
  ["generateContent", geminiGenerateContentCodec],
  ["streamGenerateContent", geminiStreamGenerateContentCodec],
  ["countTokens", geminiCountTokensCodec],
  ["embedContent", geminiEmbedContentCodec],
  ["batchEmbedContents", geminiBatchEmbedContentsCodec],
] as const;

/** A model's methods under an API version's prefix (`/v1beta`, `/v1`): `POST {prefix}/models/{model}:{method}`. */
export function geminiMethodRows(prefix: string): EndpointRow[] {
  return METHODS.map(([method, codec]) => ({ method: "POST", path: `${prefix}/models/{model*}:${method}`, codec }));
}

/**
 * The Gemini API under /v1beta (Google's current version): the model methods, and the model list and
 * model in Google's shapes. Under /v1 the same methods are rows of their own, and GET /v1/models and
 * /v1/models/{id} answer Google's clients in Google's shapes (routes/models.ts).
 */
export function geminiBetaRows(models: { list: EndpointHandler; retrieve: EndpointHandler }): EndpointRow[] {
  return [
    ...geminiMethodRows("/v1beta"),
    { method: "GET", path: "/v1beta/models", endpoint: "gemini.models.list", handler: models.list, errorResponse: geminiErrorResponse },
    { method: "GET", path: "/v1beta/models/{model*}", endpoint: "gemini.models.get", handler: models.retrieve, errorResponse: geminiErrorResponse },
  ];
}
