import type { ProviderAdapter } from "../provider-adapter";
import { authorizeBedrock } from "./authorize";
import { buildConverseRequest } from "./build-converse-request";
import { bedrockCredentialProblem } from "./credentials";
import { createBedrockStreamDecoder } from "./event-stream-decoder";
import { mapBedrockError } from "./map-error";
import { buildBedrockMessagesRequest } from "./native-messages";
import { createConverseStreamTransformer } from "./stream-transformer";
import { translateConverseResponse } from "./translate-response";
import { BEDROCK_DEFAULT_BASE_URL } from "./upstream-endpoint";

/**
 * AWS Bedrock Runtime: every model family through the Converse and ConverseStream APIs (streams in AWS's
 * binary event-stream framing), Claude's own Messages API through InvokeModel for /v1/messages clients,
 * requests signed with SigV4 (an IAM access key) or carrying a Bedrock API key.
 */
export const bedrockAdapter: ProviderAdapter = {
  type: "bedrock",
  description: {
    label: "AWS Bedrock",
    defaultBaseUrl: BEDROCK_DEFAULT_BASE_URL,
    settings: { preset: false, apiVersion: false, structuredOutput: false, region: true },
    cannotListModelsReason:
      "Bedrock lists models on its control plane (bedrock.{region}.amazonaws.com), not the runtime endpoint a channel calls; enter the model ids or inference profile ids by hand.",
  },
  relaysOpenAIFormat: false,
  buildChatRequest: buildConverseRequest,
  translateChatResponse: translateConverseResponse,
  createChatStreamTransformer: createConverseStreamTransformer,
  createStreamDecoder: createBedrockStreamDecoder,
  mapError: mapBedrockError,
  messages: buildBedrockMessagesRequest,
  authorize: authorizeBedrock,
  credentialProblem: bedrockCredentialProblem,
  // No tokenizer of the type: Bedrock serves every family, and a Claude model's id ("anthropic.claude-...")
  // already names its tokenizer.
};
