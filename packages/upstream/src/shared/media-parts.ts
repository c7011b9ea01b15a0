import type { AdapterChannel, UpstreamHttpRequest } from "../provider-adapter";
import { channelExtraHeaders } from "./channel-headers";

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
 * The channel's extra headers plus the body's content type: JSON gets its own, an upload the one it came
 * with; a form's is left to fetch (which writes the boundary).
 */
export function mediaHeaders(channel: AdapterChannel, body: MediaBody): Record<string, string> {
  const headers: Record<string, string> = channelExtraHeaders(channel.config);
  if (typeof body === "string") headers["content-type"] = "application/json";
  else if (!(body instanceof FormData)) headers["content-type"] = body.contentType;
  return headers;
}

/** What goes on the wire: the JSON text, the form, or the upload's bytes. */
export function mediaWireBody(body: MediaBody): MediaHttpRequest["body"] {
  return typeof body === "string" || body instanceof FormData ? body : body.bytes;
}
