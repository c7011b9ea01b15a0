import { mapAnthropicError } from "../anthropic/map-error";
import { createAnthropicStreamTransformer } from "../anthropic/stream-transformer";
import { translateAnthropicResponse } from "../anthropic/translate-response";
import { mapError as mapGeminiError } from "../gemini/map-error";
import { createChatStreamTransformer as createGeminiStreamTransformer } from "../gemini/stream-transformer";
import { translateChatResponse as translateGeminiResponse } from "../gemini/translate-response";
import type { AdapterChannel, ChatTranslationInput, ProviderAdapter } from "../provider-adapter";
import type { MappedUpstreamError } from "../shared/upstream-error";
import { publisherOf } from "./vertex-endpoint";

/** A Vertex answer is read by the adapter of the publisher that wrote it: Anthropic's for Claude, Gemini's otherwise. */
export const translateVertexResponse: ProviderAdapter["translateChatResponse"] = (upstreamBody, input) =>
  publisherOf(input.upstreamModel) === "anthropic" ? translateAnthropicResponse(upstreamBody, input) : translateGeminiResponse(upstreamBody, input);

export function createVertexStreamTransformer(input: ChatTranslationInput): ReturnType<ProviderAdapter["createChatStreamTransformer"]> {
  return publisherOf(input.upstreamModel) === "anthropic" ? createAnthropicStreamTransformer(input) : createGeminiStreamTransformer(input);
}

/**
 * Vertex's errors come in two shapes: Google's `{"error":{"code","message","status"}}` from Vertex itself
 * (a refused token, a project without access, quota: read as Gemini's), and Anthropic's
 * `{"type":"error","error":{"type","message"}}` from a Claude model (read as Anthropic's).
 */
export function mapVertexError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
  let anthropicShape = false;
  try {
    anthropicShape = (JSON.parse(bodyText) as { type?: unknown } | null)?.type === "error";
  } catch {
    // Not JSON: Google's reading says it by its status.
  }
  return anthropicShape ? mapAnthropicError(status, bodyText, channel) : mapGeminiError(status, bodyText, channel);
}
