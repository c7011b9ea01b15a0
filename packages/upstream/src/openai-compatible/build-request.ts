import type { AdapterChannel, ChatTranslationInput, EmbeddingsTranslationInput, UpstreamHttpRequest } from "../provider-adapter";
import { withoutCacheControl } from "../shared/strip-cache-control";
import { openAICompatiblePresets } from "./presets";

/** URL and headers for an OpenAI-compatible upstream. The base URL includes the version (`.../v1`). */
function upstreamRequest(channel: AdapterChannel, path: string, body: string): UpstreamHttpRequest {
  return {
    url: `${channel.baseUrl}${path}`,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${channel.apiKey}`,
      ...(channel.config.headers as Record<string, string> | undefined),
    },
    body,
  };
}

/**
 * The client's body, relayed: as the very text it sent when nothing must change, and re-serialised only
 * when something must (the model name, the usage chunk a stream needs for billing, a vendor's quirks, a
 * `cache_control` hint the vendor does not read).
 */
function relayedBody(input: ChatTranslationInput): string {
  const { channel, upstreamModel } = input;
  const preset = typeof channel.config.preset === "string" ? channel.config.preset : undefined;
  const quirks = preset ? openAICompatiblePresets[preset]?.quirks : undefined;
  const body = quirks?.keepsCacheControl ? input.body : withoutCacheControl(input.body, input.text);
  const stripped = body !== input.body;
  const askForUsage = input.stream && !input.clientWantsUsage && !quirks?.noStreamOptions;
  const dropFields = quirks?.dropFields?.filter((field) => field in body) ?? [];
  const dropStreamOptions = quirks?.noStreamOptions === true && "stream_options" in body;
  const renamed = upstreamModel !== body.model;
  let text = input.text ?? JSON.stringify(body);
  const onlyUsage = askForUsage && !renamed && !stripped && dropFields.length === 0 && !("stream_options" in body);
  if (onlyUsage && text.trimStart().startsWith("{")) {
    // Only the usage chunk must be asked for: prepend the field instead of re-serialising the whole body.
    const brace = text.indexOf("{");
    const rest = text.slice(brace + 1).trimStart();
    text = `{"stream_options":{"include_usage":true}${rest.startsWith("}") ? "" : ","}${rest}`;
  } else if (renamed || stripped || askForUsage || dropFields.length > 0 || dropStreamOptions) {
    const outgoing: Record<string, unknown> = { ...body, model: upstreamModel };
    if (askForUsage) outgoing.stream_options = { ...(body.stream_options as object), include_usage: true };
    if (dropStreamOptions) delete outgoing.stream_options;
    for (const field of dropFields) delete outgoing[field];
    text = JSON.stringify(outgoing);
  }
  return text;
}

export function buildChatRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  return upstreamRequest(input.channel, "/chat/completions", relayedBody(input));
}

export function buildCompletionsRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  return upstreamRequest(input.channel, "/completions", relayedBody(input));
}

/** Embeddings are relayed untouched (encoding_format included); only a mapped model name is rewritten. */
export function buildEmbeddingsRequest(input: EmbeddingsTranslationInput): UpstreamHttpRequest {
  const { body, upstreamModel } = input;
  const text = upstreamModel === body.model && input.text !== undefined ? input.text : JSON.stringify({ ...body, model: upstreamModel });
  return upstreamRequest(input.channel, "/embeddings", text);
}
