import type { AdapterChannel, GeminiMethod } from "../provider-adapter";
import { channelExtraHeaders } from "../shared/channel-headers";

/** `gemini-2.5-flash` or `models/gemini-2.5-flash` -> `gemini-2.5-flash` (a mapping may be written either way). */
export function bareModelName(upstreamModel: string): string {
  return upstreamModel.startsWith("models/") ? upstreamModel.slice("models/".length) : upstreamModel;
}

/**
 * `{baseUrl}/v1beta/models/{model}:{method}`. Streams ask for `alt=sse` (one GenerateContentResponse per SSE
 * event); without it Google streams one long JSON array.
 */
export function geminiUrl(channel: AdapterChannel, upstreamModel: string, method: GeminiMethod): string {
  const model = encodeURIComponent(bareModelName(upstreamModel));
  const query = method === "streamGenerateContent" ? "?alt=sse" : "";
  return `${channel.baseUrl}/v1beta/models/${model}:${method}${query}`;
}

/** The key travels in `x-goog-api-key`, never in the query string, so that it stays out of access logs. */
export function geminiHeaders(channel: AdapterChannel): Record<string, string> {
  return { ...channelExtraHeaders(channel.config), "content-type": "application/json", "x-goog-api-key": channel.apiKey };
}
