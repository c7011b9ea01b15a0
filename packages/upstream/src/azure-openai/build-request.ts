import type { ChatTranslationInput, UpstreamHttpRequest } from "../provider-adapter";
import { withoutCacheControl } from "../shared/strip-cache-control";
import { apiVersionOf, azureHeaders, azureUrl, supportsStreamOptions } from "./upstream-endpoint";

/**
 * OpenAI chat request -> Azure OpenAI: the body is OpenAI's, so only the URL, the key header and `model` (the
 * deployment) change. A stream always asks for `stream_options.include_usage`, so that usage is measured
 * rather than estimated; the gateway drops the usage chunk for clients that did not ask for it.
 */
export function buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  // OpenAI's models cache prompts by themselves: a cache_control hint is not theirs to read.
  const { stream: _stream, stream_options: streamOptions, ...rest } = withoutCacheControl(input.body, input.text);
  const body: Record<string, unknown> = { ...rest, model: input.upstreamModel };
  if (input.stream) {
    body.stream = true;
    if (supportsStreamOptions(apiVersionOf(input.channel))) {
      const requested = streamOptions && typeof streamOptions === "object" ? streamOptions : {};
      body.stream_options = { ...requested, include_usage: true };
    }
  }
  return {
    url: azureUrl(input.channel, input.upstreamModel, "chat/completions"),
    headers: azureHeaders(input.channel, input.stream),
    body: JSON.stringify(body),
  };
}
