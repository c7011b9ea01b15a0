import type { ProviderAdapter } from "../provider-adapter";
import { buildNativeCountTokensRequest, buildNativeMessagesRequest } from "./build-native-request";
import { buildAnthropicRequest } from "./build-request";
import { mapAnthropicError } from "./map-error";
import { createAnthropicStreamTransformer } from "./stream-transformer";
import { translateAnthropicResponse } from "./translate-response";

/** Anthropic's Messages API (POST /v1/messages, anthropic-version 2023-06-01) behind the OpenAI chat contract. */
export const anthropicAdapter: ProviderAdapter = {
  type: "anthropic",
  relaysOpenAIFormat: false,
  buildChatRequest: buildAnthropicRequest,
  translateChatResponse: translateAnthropicResponse,
  createChatStreamTransformer: createAnthropicStreamTransformer,
  mapError: mapAnthropicError,
  messages: buildNativeMessagesRequest,
  countTokens: buildNativeCountTokensRequest,
};
