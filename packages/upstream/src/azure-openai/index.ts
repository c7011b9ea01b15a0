import type { ProviderAdapter } from "../provider-adapter";
import { buildChatRequest } from "./build-request";
import { buildEmbeddingsRequest, translateEmbeddingsResponse } from "./embeddings";
import { mapError } from "./map-error";
import { buildResponsesRequest, speaksResponsesApi } from "./responses-request";
import { createChatStreamTransformer } from "./stream-transformer";
import { translateChatResponse } from "./translate-response";

/**
 * Azure OpenAI: OpenAI's wire format at a deployment URL with an `api-key` header. The channel's baseUrl is
 * the resource endpoint (https://<resource>.openai.azure.com), its model mapping maps public models to
 * deployment names, and config may hold `apiVersion` (default 2024-10-21, or "v1" for the version-less API)
 * and `headers`.
 */
export const azureOpenAIAdapter: ProviderAdapter = {
  type: "azure-openai",
  relaysOpenAIFormat: false,
  buildChatRequest,
  translateChatResponse,
  createChatStreamTransformer,
  mapError,
  buildEmbeddingsRequest,
  translateEmbeddingsResponse,
  speaksResponsesApi,
  buildResponsesRequest,
};
