import type { NativeMessagesInput, UpstreamHttpRequest } from "../provider-adapter";
import { anthropicVersion, messagesUrl } from "./build-request";

/**
 * A client's own Anthropic Messages request for an Anthropic channel: the body goes as is (re-serialised
 * only when the model is renamed), with the client's anthropic-version and anthropic-beta; the channel's
 * extra headers go last and win.
 */
export function buildNativeMessagesRequest(input: NativeMessagesInput): UpstreamHttpRequest {
  const { channel, body, upstreamModel } = input;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": channel.apiKey,
    "anthropic-version": input.version ?? anthropicVersion,
  };
  if (input.beta) headers["anthropic-beta"] = input.beta;
  return {
    url: messagesUrl(channel.baseUrl),
    headers: { ...headers, ...(channel.config.headers as Record<string, string> | undefined) },
    body: upstreamModel === body.model ? input.text : JSON.stringify({ ...body, model: upstreamModel }),
  };
}

/**
 * A client's count_tokens request for an Anthropic channel: POST {base}/v1/messages/count_tokens
 * (https://docs.anthropic.com/en/api/messages-count-tokens), the body as sent but for the upstream model,
 * with the client's anthropic-version and anthropic-beta.
 */
export function buildNativeCountTokensRequest(input: NativeMessagesInput): UpstreamHttpRequest {
  const messages = buildNativeMessagesRequest(input);
  return { ...messages, url: `${messages.url}/count_tokens` };
}
