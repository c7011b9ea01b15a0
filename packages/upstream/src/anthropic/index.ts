import { defineAdapter } from "../define-adapter";
import { buildNativeCountTokensRequest, buildNativeMessagesRequest } from "./build-native-request";
import { buildAnthropicRequest } from "./build-request";
import { listModels } from "./list-models";
import { mapAnthropicError } from "./map-error";
import { createAnthropicStreamTransformer } from "./stream-transformer";
import { translateAnthropicResponse } from "./translate-response";

/** Anthropic's Messages API (POST /v1/messages, anthropic-version 2023-06-01) behind the OpenAI chat contract. */
export const anthropicAdapter = defineAdapter({
  type: "anthropic",
  description: { label: "Anthropic", defaultBaseUrl: "https://api.anthropic.com", settings: { structuredOutput: true } },
  buildChatRequest: buildAnthropicRequest,
  translateChatResponse: translateAnthropicResponse,
  createChatStreamTransformer: createAnthropicStreamTransformer,
  mapError: mapAnthropicError,
  listModels,
  tokenizer: "anthropic",
  messages: buildNativeMessagesRequest,
  countTokens: buildNativeCountTokensRequest,
});
