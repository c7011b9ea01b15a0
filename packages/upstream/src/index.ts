export {
  adapterFor,
  channelCredentialProblem,
  channelTypeDescriptor,
  channelTypeDescriptors,
  channelTypeIds,
  DEFAULT_CHANNEL_TYPE,
  describeAdapter,
  isChannelType,
  registerProviderAdapter,
} from "./adapters";
export type * from "./channel-type-descriptor";
export type { ModelListPages } from "./shared/model-list-page";
export { ListingFailure } from "./shared/model-list-page";
export { anthropicAdapter } from "./anthropic";
export { createVertexAdapter } from "./vertex";
export { parseServiceAccountKey, ServiceAccountKeyError } from "./vertex/service-account";
export type * from "./anthropic/anthropic-wire-types";
export { buildNativeCountTokensRequest, buildNativeMessagesRequest } from "./anthropic/build-native-request";
export { createAnthropicUsageAccumulator, tokenUsageFromAnthropic } from "./anthropic/extract-usage";
export { openAIUsageOf, promptTokensDetailsOf } from "./shared/openai-usage";
export { extractUsage } from "./openai-compatible/extract-usage";
export { extractUsage as tokenUsageFromGemini } from "./gemini/extract-usage";
export * from "./openai-compatible/presets";
export * from "./anthropic/presets";
export * from "./channel-presets";
export type * from "./openai-wire-types";
export { type ChannelProbeResult, type ChannelToProbe, createChannelProber } from "./probe-channel";
export { type AdapterDefinition, defineAdapter } from "./define-adapter";
export * from "./provider-adapter";
export { scrubSecret } from "./shared/scrub-secret";
export type { MappedUpstreamError } from "./shared/upstream-error";
export { upstreamModelFor } from "./upstream-model";
export { buildMediaRequest, type MediaBody, type MediaHttpRequest, type MediaOperation, servesMediaOperation } from "./media-request";
export { credentialFailure, type SendableRequest, sendUpstream } from "./send-upstream";
export { listUpstreamModels, type ModelListChannel, type ModelListResult } from "./list-upstream-models";
export * from "./fetch-upstream";
