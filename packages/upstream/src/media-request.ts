import { adapterFor } from "./adapters";
import type { AdapterChannel } from "./provider-adapter";
import type { MediaBody, MediaHttpRequest, MediaOperation } from "./shared/media-parts";

export type { MediaBody, MediaHttpRequest, MediaOperation } from "./shared/media-parts";

/** Whether a channel of `type` serves `operation` (its adapter's media capability; other types are skipped in routing). */
export function servesMediaOperation(type: string, operation: MediaOperation): boolean {
  return adapterFor(type).media?.serves(operation) ?? false;
}

/**
 * The upstream request for a media operation on a channel of `type`, built by its adapter's media
 * capability (OpenAI-compatible: `{baseUrl}/{operation}` with a bearer key; Azure: the deployment's path
 * with its `api-key` header). Routing only offers the operation to types that serve it.
 */
export function buildMediaRequest(type: string, channel: AdapterChannel, deployment: string, operation: MediaOperation, body: MediaBody): MediaHttpRequest {
  const media = adapterFor(type).media;
  if (!media?.serves(operation)) throw new Error(`A ${type} channel does not serve ${operation}`);
  return media.buildRequest(channel, deployment, operation, body);
}
