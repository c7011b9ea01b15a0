import { defineAdapter } from "../define-adapter";
import { buildChatRequest } from "./build-request";
import { buildEmbeddingsRequest, translateEmbeddingsResponse } from "./embeddings";
import { listModels } from "./list-models";
import { mapError } from "./map-error";
import { buildGeminiNativeRequest } from "./native-request";
import { createChatStreamTransformer } from "./stream-transformer";
import { translateChatResponse } from "./translate-response";

/**
 * Google's Gemini API (generativelanguage.googleapis.com, v1beta) behind the OpenAI chat and embeddings
 * shapes. The channel's baseUrl is the origin (https://generativelanguage.googleapis.com); config may hold
 * `headers` (extra request headers) and `includeThoughts: true` (always ask for thought summaries). A client of
 * the Gemini API itself (`@google/genai`, Gemini CLI) is relayed natively (geminiNative).
 */
export const geminiAdapter = defineAdapter({
  type: "gemini",
  description: { label: "Google Gemini", defaultBaseUrl: "https://generativelanguage.googleapis.com" },
  buildChatRequest,
  translateChatResponse,
  createChatStreamTransformer,
  mapError,
  buildEmbeddingsRequest,
  translateEmbeddingsResponse,
  listModels,
  geminiNative: buildGeminiNativeRequest,
  tokenizer: "gemini",
});
