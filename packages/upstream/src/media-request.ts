import { apiVersionOf } from "./azure-openai/upstream-endpoint";
import type { AdapterChannel, UpstreamHttpRequest } from "./provider-adapter";
import { channelExtraHeaders } from "./shared/channel-headers";

/**
 * The endpoints relayed as they are to the channel types that serve them natively: OpenAI's images, audio
 * and moderations, and the Cohere/Jina rerank shape (served at `/v1/rerank` by the vendors and self-hosted
 * servers that rerank: Jina, Cohere's compatibility API, vLLM, Xinference, LocalAI).
 */
export type MediaOperation =
  | "images/generations"
  | "images/edits"
  | "audio/transcriptions"
  | "audio/translations"
  | "audio/speech"
  | "moderations"
  | "rerank";

/**
 * A relayed request whose body may be a multipart upload: the client's bytes as they came (with their
 * content type and boundary), or a form that fetch serialises (writing its own boundary).
 */
export interface MediaHttpRequest extends Omit<UpstreamHttpRequest, "body"> {
  body: string | FormData | Uint8Array<ArrayBuffer>;
}

/** The body of a media request: JSON text, a form, or an upload's bytes with the content type they came with. */
export type MediaBody = string | FormData | { bytes: Uint8Array<ArrayBuffer>; contentType: string };

/**
 * Azure OpenAI serves images and audio on a deployment (learn.microsoft.com/azure/ai-services/openai/reference);
 * moderation and rerank are not part of its data plane.
 */
const azureOperations = new Set<MediaOperation>(["images/generations", "images/edits", "audio/transcriptions", "audio/translations", "audio/speech"]);

/** Whether a channel of `type` serves `operation` (other types are skipped in routing). */
export function servesMediaOperation(type: string, operation: MediaOperation): boolean {
  if (type === "openai-compatible") return true;
  if (type === "azure-openai") return azureOperations.has(operation);
  return false;
}

/**
 * The upstream request for a media operation on a channel of `type`: OpenAI-compatible at
 * `{baseUrl}/{operation}` with a bearer key; Azure at the deployment's path with its `api-key` header. A
 * JSON body gets its content type, an upload the one it came with; a form's is left to fetch.
 */
export function buildMediaRequest(
  type: string,
  channel: AdapterChannel,
  deployment: string,
  operation: MediaOperation,
  body: MediaBody,
): MediaHttpRequest {
  const headers: Record<string, string> = channelExtraHeaders(channel.config);
  if (typeof body === "string") headers["content-type"] = "application/json";
  else if (!(body instanceof FormData)) headers["content-type"] = body.contentType;
  let url: string;
  if (type === "azure-openai") {
    headers["api-key"] = channel.apiKey;
    const apiVersion = apiVersionOf(channel);
    url =
      apiVersion === "v1"
        ? `${channel.baseUrl}/openai/v1/${operation}`
        : `${channel.baseUrl}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(apiVersion)}`;
  } else {
    headers.authorization = `Bearer ${channel.apiKey}`;
    url = `${channel.baseUrl}/${operation}`;
  }
  return { url, headers, body: typeof body === "string" || body instanceof FormData ? body : body.bytes };
}
