import { toAnthropicRequestBody } from "../anthropic/build-request";
import { buildChatRequest as buildGeminiChatRequest } from "../gemini/build-request";
import type { ChatTranslationInput, GeminiNativeInput, NativeMessagesInput, UpstreamHttpRequest } from "../provider-adapter";
import { publisherOf, vertexHeaders, vertexModelUrl } from "./vertex-endpoint";

/** The Messages API version Claude on Vertex takes, in the body (https://docs.anthropic.com/en/api/claude-on-vertex-ai). */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** An Anthropic Messages body as Vertex takes it: the model in the URL (not the body), the version in the body. */
function vertexAnthropicBody(body: Record<string, unknown>): string {
  const { model: _model, anthropic_version: version, ...rest } = body;
  return JSON.stringify({ anthropic_version: typeof version === "string" ? version : VERTEX_ANTHROPIC_VERSION, ...rest });
}

/**
 * OpenAI chat request -> Vertex: Claude models (`claude-…`) through Anthropic's translation to
 * `:rawPredict`/`:streamRawPredict`, every other model through Gemini's to
 * `:generateContent`/`:streamGenerateContent?alt=sse`. The body is the other adapter's, unchanged but for
 * Vertex's own fields; the access token is added by `authorize`.
 */
export function buildVertexChatRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  const { channel, upstreamModel, stream } = input;
  if (publisherOf(upstreamModel) === "anthropic") {
    const body = toAnthropicRequestBody(input.body, upstreamModel, stream, channel.config) as unknown as Record<string, unknown>;
    return { url: vertexModelUrl(channel, upstreamModel, stream ? "streamRawPredict" : "rawPredict"), headers: vertexHeaders(channel), body: vertexAnthropicBody(body) };
  }
  const gemini = buildGeminiChatRequest(input);
  return { url: vertexModelUrl(channel, upstreamModel, stream ? "streamGenerateContent" : "generateContent"), headers: vertexHeaders(channel), body: gemini.body };
}

/**
 * A client's own Anthropic Messages request for a Claude model on Vertex: its body as Vertex takes it, its
 * anthropic-beta header kept. Null for Google's models: their /v1/messages requests are translated through chat.
 */
export function buildVertexMessagesRequest(input: NativeMessagesInput): UpstreamHttpRequest | null {
  const { channel, upstreamModel, body } = input;
  if (publisherOf(upstreamModel) !== "anthropic") return null;
  return {
    url: vertexModelUrl(channel, upstreamModel, body.stream === true ? "streamRawPredict" : "rawPredict"),
    headers: vertexHeaders(channel, input.beta ? { "anthropic-beta": input.beta } : {}),
    body: vertexAnthropicBody(body),
  };
}

/** The Gemini API methods Vertex serves for Google's models under the same name and body. */
const VERTEX_GEMINI_METHODS = new Set(["generateContent", "streamGenerateContent", "countTokens"]);

/**
 * A Gemini-API client's own request for a Gemini model on Vertex: the same method on Vertex's publisher
 * model, the body as it came. Null for Claude models and for the embedding methods (Vertex embeds through
 * `:predict`): those are translated, as for a channel that does not speak the Gemini API.
 */
export function buildVertexGeminiNativeRequest(input: GeminiNativeInput): UpstreamHttpRequest | null {
  const { channel, upstreamModel, method } = input;
  if (publisherOf(upstreamModel) !== "google" || !VERTEX_GEMINI_METHODS.has(method)) return null;
  return { url: vertexModelUrl(channel, upstreamModel, method), headers: vertexHeaders(channel), body: input.text };
}
