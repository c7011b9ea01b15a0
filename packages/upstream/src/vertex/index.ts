import { defineAdapter } from "../define-adapter";
import type { ProviderAdapter } from "../provider-adapter";
import { type AccessTokenCacheOptions, createAccessTokenCache } from "./access-token";
import { buildVertexChatRequest, buildVertexGeminiNativeRequest, buildVertexMessagesRequest } from "./build-request";
import { buildVertexEmbeddingsRequest, translateVertexEmbeddingsResponse } from "./embeddings";
import { createVertexStreamTransformer, mapVertexError, translateVertexResponse } from "./translate";
import { serviceAccountKeyProblem } from "./service-account";
import { VERTEX_DEFAULT_BASE_URL } from "./vertex-endpoint";

/**
 * Google Vertex AI: Gemini models (`generateContent`) and Claude models (`rawPredict`) of one project and
 * location, behind the OpenAI chat and embeddings shapes, with Claude's native Messages relay. The channel's
 * key is a service-account JSON key, exchanged for an access token (cached per key until shortly before it
 * expires) that `authorize` adds to each request. config: `project` (default: the key's project_id),
 * `location` (default us-central1; "global" is served from aiplatform.googleapis.com), `headers`.
 * `createVertexAdapter` takes a clock for tests; the registry holds the one below.
 */
export function createVertexAdapter(tokenOptions: AccessTokenCacheOptions = {}): ProviderAdapter {
  const tokens = createAccessTokenCache(tokenOptions);
  return defineAdapter({
    type: "vertex",
    description: {
      label: "Google Vertex AI",
      defaultBaseUrl: VERTEX_DEFAULT_BASE_URL,
      settings: { structuredOutput: true, project: true, location: true },
      cannotListModelsReason: "Vertex AI has no list of the models a project may call: enter them by hand (e.g. gemini-2.5-flash, claude-sonnet-4@20250514).",
    },
    buildChatRequest: buildVertexChatRequest,
    translateChatResponse: translateVertexResponse,
    createChatStreamTransformer: createVertexStreamTransformer,
    mapError: mapVertexError,
    messages: buildVertexMessagesRequest,
    geminiNative: buildVertexGeminiNativeRequest,
    credentialProblem: serviceAccountKeyProblem,
    buildEmbeddingsRequest: buildVertexEmbeddingsRequest,
    translateEmbeddingsResponse: translateVertexEmbeddingsResponse,
    async authorize(request, channel, context) {
      const accessToken = await tokens.tokenFor(channel.apiKey, context);
      return { ...request, headers: { ...request.headers, authorization: `Bearer ${accessToken}` } };
    },
  });
}

export const vertexAdapter = createVertexAdapter();
