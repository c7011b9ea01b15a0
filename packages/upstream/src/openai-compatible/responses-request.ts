import type { AdapterChannel, ResponsesRelayInput, UpstreamHttpRequest } from "../provider-adapter";
import { openAICompatiblePresets } from "./presets";

/**
 * Whether /v1/responses is relayed to this channel's `/responses`: its `config.responsesApi` when set,
 * otherwise its preset's default (OpenAI, Groq, xAI and OpenRouter serve it; the chat-only vendors and
 * self-hosted servers do not, and a channel without a preset is assumed chat-only).
 */
export function speaksResponsesApi(channel: AdapterChannel): boolean {
  const configured = channel.config.responsesApi;
  if (typeof configured === "boolean") return configured;
  const preset = typeof channel.config.preset === "string" ? openAICompatiblePresets[channel.config.preset] : undefined;
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
