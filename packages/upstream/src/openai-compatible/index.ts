import { defineAdapter } from "../define-adapter";
import { buildChatRequest, buildCompletionsRequest, buildEmbeddingsRequest } from "./build-request";
import { listModels } from "./list-models";
import { mapError } from "./map-error";
import { openAICompatibleMedia } from "./media";
import { buildResponsesRequest, speaksResponsesApi } from "./responses-request";
import { createChatStreamTransformer } from "./stream-transformer";
import { translateChatResponse } from "./translate-response";

/**
 * Upstreams that speak OpenAI's own format (OpenAI, DeepSeek, Qwen, GLM, Moonshot, Mistral, Groq, xAI,
 * OpenRouter, vLLM, Ollama: see presets.ts for their quirks). Requests, answers and streams are relayed
 * byte for byte; a body is re-serialised only when the model is renamed, a stream must ask for its usage
 * chunk in a way that cannot be prepended, or a vendor's quirk drops a field.
 */
export const openAICompatibleAdapter = defineAdapter({
  type: "openai-compatible",
  description: {
    label: "OpenAI-compatible",
    defaultBaseUrl: "https://api.openai.com/v1",
    settings: { preset: true },
    responsesApiDefault: "by preset or base URL",
  },
  relaysOpenAIFormat: true,
  // A model behind an OpenAI-compatible channel is the gateway's to name, whoever serves it upstream.
  ownedBy: "tollgate",
  buildChatRequest,
  buildCompletionsRequest,
  translateChatResponse,
  createChatStreamTransformer,
  mapError,
  buildEmbeddingsRequest,
  speaksResponsesApi,
  buildResponsesRequest,
  media: openAICompatibleMedia,
  listModels,
});
