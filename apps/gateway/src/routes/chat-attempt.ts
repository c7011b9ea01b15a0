import { openAICompatiblePresets, type TokenUsage } from "@tollgate/shared";
import { countPromptTokens, countTextTokens } from "../accounting/count-tokens";
import { GatewayError } from "../errors";
import { adapterFor, gatewayErrorFromTranslated } from "../providers";
import { buildUpstreamRequest, upstreamModelFor } from "../providers/openai-compatible/build-request";
import { mapUpstreamError } from "../providers/openai-compatible/map-upstream-error";
import { type ChatTranslationInput, TranslationError } from "../providers/provider-adapter";
import type { RoutableChannel } from "../routing/channel-catalog";
import type { UpstreamAttempt } from "../routing/forward-with-failover";

/** What the chat route asks of every attempt, whatever the channel's protocol. */
export interface ChatRequestShape {
  /** The client's body, parsed; never mutated. */
  body: Record<string, unknown>;
  /** The client's body as sent, forwarded as is when nothing must change. */
  text: string;
  model: string;
  stream: boolean;
  clientWantsUsage: boolean;
  /** `/completions` (legacy text completions) is relayed to OpenAI-compatible channels only. */
  path: "/chat/completions" | "/completions";
}

export function translationInput(channel: RoutableChannel, shape: ChatRequestShape, upstreamModel: string): ChatTranslationInput {
  return {
    channel: { baseUrl: channel.baseUrl, apiKey: channel.apiKey, config: channel.config as Record<string, unknown> },
    upstreamModel,
    body: shape.body,
    stream: shape.stream,
  };
}

/** Builds the upstream HTTP request for one channel: relayed for OpenAI-compatible ones, translated otherwise. */
export function prepareChatAttempt(channel: RoutableChannel, shape: ChatRequestShape, signal: AbortSignal): UpstreamAttempt {
  const upstreamModel = upstreamModelFor(channel, shape.model);
  const adapter = adapterFor(channel.type);
  if (!adapter) {
    const quirks = channel.config.preset ? openAICompatiblePresets[channel.config.preset]?.quirks : undefined;
    const askForUsage = shape.stream && !shape.clientWantsUsage && !quirks?.noStreamOptions;
    const dropFields = quirks?.dropFields?.filter((field) => field in shape.body) ?? [];
    const dropStreamOptions = quirks?.noStreamOptions === true && "stream_options" in shape.body;
    let text = shape.text;
    const onlyUsage = askForUsage && upstreamModel === shape.model && dropFields.length === 0 && !("stream_options" in shape.body);
    if (onlyUsage && text.trimStart().startsWith("{")) {
      // Only the usage chunk must be asked for: prepend the field instead of re-serialising the whole body.
      const brace = text.indexOf("{");
      const rest = text.slice(brace + 1).trimStart();
      text = `{"stream_options":{"include_usage":true}${rest.startsWith("}") ? "" : ","}${rest}`;
    } else if (upstreamModel !== shape.model || askForUsage || dropFields.length > 0 || dropStreamOptions) {
      // Re-serialise only when something must change: the model name, the usage chunk, a vendor's quirks.
      const outgoing: Record<string, unknown> = { ...shape.body, model: upstreamModel };
      if (askForUsage) outgoing.stream_options = { ...(shape.body.stream_options as object), include_usage: true };
      if (dropStreamOptions) delete outgoing.stream_options;
      for (const field of dropFields) delete outgoing[field];
      text = JSON.stringify(outgoing);
    }
    return {
      ...buildUpstreamRequest(channel, shape.path, text, signal),
      upstreamModel,
      mapError: (status, bodyText) => mapUpstreamError(status, bodyText, channel),
    };
  }
  if (shape.path !== "/chat/completions") {
    throw new GatewayError(`The model '${shape.model}' is not served through /v1/completions; use /v1/chat/completions.`, {
      status: 400,
      code: "unsupported_endpoint",
      param: "model",
    });
  }
  let request: ReturnType<typeof adapter.buildChatRequest>;
  try {
    request = adapter.buildChatRequest(translationInput(channel, shape, upstreamModel));
  } catch (error) {
    if (error instanceof TranslationError) {
      throw new GatewayError(error.message, { status: 400, code: "invalid_value", param: error.param });
    }
    throw error;
  }
  return {
    url: request.url,
    init: { method: "POST", headers: { ...request.headers, ...channel.config.headers }, body: request.body, signal },
    upstreamModel,
    mapError: (status, bodyText) => gatewayErrorFromTranslated(adapter.mapError(status, bodyText, translationInput(channel, shape, upstreamModel).channel)),
  };
}

/** Text the model produced in one choice delta or message: content, reasoning and tool-call arguments. */
export function producedText(part: Record<string, unknown> | undefined): string {
  if (!part) return "";
  let text = "";
  if (typeof part.content === "string") text += part.content;
  if (typeof part.text === "string") text += part.text;
  if (typeof part.reasoning_content === "string") text += part.reasoning_content;
  if (Array.isArray(part.tool_calls)) {
    for (const call of part.tool_calls as Array<{ function?: { name?: string; arguments?: string } }>) {
      text += (call.function?.name ?? "") + (call.function?.arguments ?? "");
    }
  }
  return text;
}

/** Local counts for an answer whose upstream reported no usage (or was cut short). */
export async function estimateUsage(body: Record<string, unknown>, completionText: string): Promise<TokenUsage> {
  return {
    promptTokens: await countPromptTokens(body),
    completionTokens: await countTextTokens(completionText),
    cachedTokens: 0,
  };
}
