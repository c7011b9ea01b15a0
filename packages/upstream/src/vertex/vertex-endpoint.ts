import type { AdapterChannel } from "../provider-adapter";
import { TranslationError } from "../provider-adapter";
import { channelExtraHeaders } from "../shared/channel-headers";

/** Vertex AI's global endpoint: the channel's base URL by default, served from the location's own host unless "global". */
export const VERTEX_DEFAULT_BASE_URL = "https://aiplatform.googleapis.com";

/** A location when the channel names none: the one every Gemini model and most partner models are served from. */
export const DEFAULT_LOCATION = "us-central1";

/** Which publisher serves a model on Vertex: Anthropic's Claude models, or Google's own (Gemini, embeddings). */
export type VertexPublisher = "google" | "anthropic";

/** `claude-sonnet-4@20250514` (or `publishers/anthropic/models/claude-...`) is Anthropic's; everything else is Google's. */
export function publisherOf(upstreamModel: string): VertexPublisher {
  return /^claude-/i.test(bareVertexModel(upstreamModel)) ? "anthropic" : "google";
}

/** A mapping may name a model by its resource path (`publishers/google/models/gemini-2.5-pro`, `models/…`): its last segment. */
export function bareVertexModel(upstreamModel: string): string {
  const slash = upstreamModel.lastIndexOf("/");
  return slash === -1 ? upstreamModel : upstreamModel.slice(slash + 1);
}

function configText(channel: AdapterChannel, key: string): string | null {
  const value = channel.config[key];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** The channel's location (config.location), us-central1 when unset. */
export function locationOf(channel: AdapterChannel): string {
  return configText(channel, "location") ?? DEFAULT_LOCATION;
}

/**
 * The channel's project (config.project), else the project the service account belongs to. Read from the
 * key only when the config has none; a key that is not JSON gives none and the request is refused.
 */
export function projectOf(channel: AdapterChannel): string {
  const configured = configText(channel, "project");
  if (configured) return configured;
  try {
    const projectId = (JSON.parse(channel.apiKey) as { project_id?: unknown }).project_id;
    if (typeof projectId === "string" && projectId !== "") return projectId;
  } catch {
    // Said below, without quoting the key.
  }
  throw new TranslationError("This Vertex AI channel has no project: set the channel's project.", null, "unsupported_parameter");
}

/**
 * The origin requests go to: Google's default is served from `{location}-aiplatform.googleapis.com` (or
 * aiplatform.googleapis.com for the global location); any other base URL (a private endpoint, a test's
 * fake) is used as configured.
 */
export function vertexOrigin(channel: AdapterChannel): string {
  if (channel.baseUrl !== VERTEX_DEFAULT_BASE_URL) return channel.baseUrl;
  const location = locationOf(channel);
  return location === "global" ? VERTEX_DEFAULT_BASE_URL : `https://${location}-aiplatform.googleapis.com`;
}

/**
 * `{origin}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`.
 * Gemini streams ask for `alt=sse` (one GenerateContentResponse per event); Claude's streamRawPredict
 * answers in Anthropic's own SSE.
 */
export function vertexModelUrl(channel: AdapterChannel, upstreamModel: string, method: string): string {
  const project = encodeURIComponent(projectOf(channel));
  const location = encodeURIComponent(locationOf(channel));
  // `@` is allowed in a path segment and is how Vertex names a partner model's version (claude-sonnet-4@20250514).
  const model = encodeURIComponent(bareVertexModel(upstreamModel)).replaceAll("%40", "@");
  const query = method === "streamGenerateContent" ? "?alt=sse" : "";
  return `${vertexOrigin(channel)}/v1/projects/${project}/locations/${location}/publishers/${publisherOf(upstreamModel)}/models/${model}:${method}${query}`;
}

/** JSON headers plus the channel's extra ones; the access token is added by `authorize`, just before sending. */
export function vertexHeaders(channel: AdapterChannel, extra: Record<string, string> = {}): Record<string, string> {
  return { "content-type": "application/json", ...extra, ...channelExtraHeaders(channel.config) };
}
