import type { AdapterChannel, ResponsesRelayInput, UpstreamHttpRequest } from "../provider-adapter";
import { apiVersionOf, azureHeaders } from "./upstream-endpoint";

/** The first dated data-plane version that serves the Responses API (Azure OpenAI, "Responses API"). */
const FIRST_RESPONSES_VERSION = "2025-03-01";

function datedVersion(apiVersion: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}/.exec(apiVersion)?.[0];
}

/**
 * Azure serves the Responses API on its v1 API (`/openai/v1/responses`) and on dated versions from
 * 2025-03-01-preview (`/openai/responses?api-version=...`), with the deployment in the body's `model`. The
 * channel's `config.responsesApi` decides; by default a channel on such a version relays natively, one
 * pinned to an older version (the default 2024-10-21 included) is translated through chat completions.
 */
export function speaksResponsesApi(channel: AdapterChannel): boolean {
  const configured = channel.config.responsesApi;
  if (typeof configured === "boolean") return configured;
  const apiVersion = apiVersionOf(channel);
  const date = datedVersion(apiVersion);
  return apiVersion === "v1" || (date !== undefined && date >= FIRST_RESPONSES_VERSION);
}

export function buildResponsesRequest(input: ResponsesRelayInput): UpstreamHttpRequest {
  const { channel, upstreamModel, body } = input;
  const apiVersion = apiVersionOf(channel);
  const date = datedVersion(apiVersion);
  // A channel told to relay natively while pinned to an older dated version uses the version-less v1 API.
  const url =
    date !== undefined && date >= FIRST_RESPONSES_VERSION
      ? `${channel.baseUrl}/openai/responses?api-version=${encodeURIComponent(apiVersion)}`
      : `${channel.baseUrl}/openai/v1/responses`;
  const text = input.text !== undefined && upstreamModel === body.model ? input.text : JSON.stringify({ ...body, model: upstreamModel });
  return { url, headers: azureHeaders(channel, input.stream), body: text };
}
