import { defineAdapter } from "../define-adapter";
import { buildChatRequest } from "./build-request";
import { buildEmbeddingsRequest, translateEmbeddingsResponse } from "./embeddings";
import { mapError } from "./map-error";
import { azureMedia } from "./media";
import { buildResponsesRequest, speaksResponsesApi } from "./responses-request";
import { createChatStreamTransformer } from "./stream-transformer";
import { translateChatResponse } from "./translate-response";

/** Said to an admin who asks for an Azure channel's models (the console's "Fetch models", the CLI's `channel models`). */
const AZURE_CANNOT_LIST_MODELS =
  "Azure OpenAI cannot list a resource's deployments with an API key (that needs the Azure management API and " +
  "an Azure AD sign-in). Enter the deployment names as the channel's models, or map public names to them.";

/**
 * Azure OpenAI: OpenAI's wire format at a deployment URL with an `api-key` header. The channel's baseUrl is
 * the resource endpoint (https://<resource>.openai.azure.com), its model mapping maps public models to
 * deployment names, and config may hold `apiVersion` (default 2024-10-21, or "v1" for the version-less API)
 * and `headers`.
 */
export const azureOpenAIAdapter = defineAdapter({
  type: "azure-openai",
  description: {
    label: "Azure OpenAI",
    // Each channel is its own resource: https://<resource>.openai.azure.com.
    defaultBaseUrl: null,
    settings: { apiVersion: true },
    responsesApiDefault: "by API version",
    cannotListModelsReason: AZURE_CANNOT_LIST_MODELS,
  },
  buildChatRequest,
  translateChatResponse,
  createChatStreamTransformer,
  mapError,
  buildEmbeddingsRequest,
  translateEmbeddingsResponse,
  speaksResponsesApi,
  buildResponsesRequest,
  media: azureMedia,
  tokenizer: "openai",
});
