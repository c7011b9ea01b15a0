import type { AdapterChannel } from "../provider-adapter";
import type { MediaOperation } from "../shared/media-parts";
import { channelExtraHeaders } from "../shared/channel-headers";

/** The newest generally available data-plane version at the time of writing; a channel may pin another. */
export const DEFAULT_API_VERSION = "2024-10-21";

export type AzureOperation = "chat/completions" | "embeddings" | MediaOperation;

export function apiVersionOf(channel: AdapterChannel): string {
  const configured = channel.config.apiVersion;
  return typeof configured === "string" && configured.trim() !== "" ? configured.trim() : DEFAULT_API_VERSION;
}

/**
 * `{baseUrl}/openai/deployments/{deployment}/{operation}?api-version=...`, where the deployment is the
 * upstream model (the channel's model mapping maps public names to deployment names). With apiVersion "v1"
 * the channel uses Azure's version-less v1 API instead: `{baseUrl}/openai/v1/{operation}`, deployment in the
 * body's `model`.
 */
export function azureUrl(channel: AdapterChannel, deployment: string, operation: AzureOperation): string {
  const apiVersion = apiVersionOf(channel);
  if (apiVersion === "v1") return `${channel.baseUrl}/openai/v1/${operation}`;
  return `${channel.baseUrl}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(apiVersion)}`;
}

/** Azure's key header is `api-key` (not a bearer token). */
export function azureHeaders(channel: AdapterChannel, stream: boolean): Record<string, string> {
  return {
    ...channelExtraHeaders(channel.config),
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
    "api-key": channel.apiKey,
  };
}

/**
 * `stream_options` arrived in the 2024-09-01-preview data plane (GA in 2024-10-21); older versions answer 400
 * to it, so it is only sent to versions that know it.
 */
export function supportsStreamOptions(apiVersion: string): boolean {
  const date = /^\d{4}-\d{2}-\d{2}/.exec(apiVersion)?.[0];
  return date === undefined || date >= "2024-09-01";
}
