import type { AdapterChannel, ResponsesRelayInput, UpstreamHttpRequest } from "../provider-adapter";
import { openAICompatiblePresets } from "./presets";

/** The preset whose base URL a channel without a preset was given (the quickstart's `--base-url https://api.openai.com/v1`). */
function presetOfBaseUrl(baseUrl: string) {
  const normalized = baseUrl.replace(/\/+$/, "").toLowerCase();
  return Object.values(openAICompatiblePresets).find((preset) => preset.baseUrl.toLowerCase() === normalized);
}

/**
 * Whether /v1/responses is relayed to this channel's `/responses`: its `config.responsesApi` when set,
 * otherwise its preset's default (OpenAI, Groq, xAI and OpenRouter serve it; the chat-only vendors and
 * self-hosted servers do not). A channel without a preset takes the default of the preset whose base URL
 * it has (a channel on https://api.openai.com/v1 speaks it); any other is assumed chat-only.
 */
export function speaksResponsesApi(channel: AdapterChannel): boolean {
  const configured = channel.config.responsesApi;
  if (typeof configured === "boolean") return configured;
  const preset =
    typeof channel.config.preset === "string" ? openAICompatiblePresets[channel.config.preset] : presetOfBaseUrl(channel.baseUrl);
  return preset?.responsesApi === true;
}

/** The Responses body relayed as sent; re-serialised only when the model is renamed or the body was rewritten. */
export function buildResponsesRequest(input: ResponsesRelayInput): UpstreamHttpRequest {
  const { body, channel, upstreamModel } = input;
  const text = input.text !== undefined && upstreamModel === body.model ? input.text : JSON.stringify({ ...body, model: upstreamModel });
  return {
    url: `${channel.baseUrl}/responses`,
    headers: {
      "content-type": "application/json",
      accept: input.stream ? "text/event-stream" : "application/json",
      authorization: `Bearer ${channel.apiKey}`,
      ...(channel.config.headers as Record<string, string> | undefined),
    },
    body: text,
  };
}
