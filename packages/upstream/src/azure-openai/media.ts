import type { MediaCapability } from "../provider-adapter";
import { type MediaOperation, mediaHeaders, mediaWireBody } from "../shared/media-parts";
import { azureUrl } from "./upstream-endpoint";

/**
 * Azure OpenAI serves images and audio on a deployment (learn.microsoft.com/azure/ai-services/openai/reference);
 * moderation and rerank are not part of its data plane.
 */
const servedOperations = new Set<MediaOperation>(["images/generations", "images/edits", "audio/transcriptions", "audio/translations", "audio/speech"]);

/** Images and audio at the deployment's path (the same URL rule as chat and embeddings) with the `api-key` header. */
export const azureMedia: MediaCapability = {
  serves: (operation) => servedOperations.has(operation),
  buildRequest: (channel, deployment, operation, body) => ({
    url: azureUrl(channel, deployment, operation),
    headers: { ...mediaHeaders(channel, body), "api-key": channel.apiKey },
    body: mediaWireBody(body),
  }),
};
