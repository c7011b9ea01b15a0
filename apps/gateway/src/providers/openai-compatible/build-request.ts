import type { RoutableChannel } from "../../routing/channel-catalog";

/** URL and headers for an OpenAI-compatible upstream. The base URL includes the version (`.../v1`). */
export function buildUpstreamRequest(
  channel: RoutableChannel,
  path: "/chat/completions" | "/embeddings" | "/completions",
  body: string,
  signal: AbortSignal,
): { url: string; init: RequestInit } {
  return {
    url: `${channel.baseUrl}${path}`,
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${channel.apiKey}`,
        ...channel.config.headers,
      },
      body,
      signal,
    } as RequestInit,
  };
}

/** The upstream model id for a public one (per-channel mapping). */
export function upstreamModelFor(channel: RoutableChannel, model: string): string {
  return channel.modelMapping[model] ?? model;
}
