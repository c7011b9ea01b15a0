import { type ChatTranslationInput, type ProviderAdapter, TranslationError, upstreamModelFor } from "@tollgate/upstream";
import { errors, GatewayError } from "../../errors";
import type { RoutableChannel } from "../../routing/channel-catalog";
import type { UpstreamAttempt } from "../../routing/forward-with-failover";

/** An OpenAI chat or legacy completions request, as the codecs that speak it to channels hold it. */
export interface ChatRequest {
  /** The client's body (or the OpenAI body a codec made of it), parsed; never mutated. */
  body: Record<string, unknown>;
  /** The body as the client sent it, forwarded as is when nothing must change; absent when there is none. */
  text?: string;
  model: string;
  stream: boolean;
  clientWantsUsage: boolean;
  /** `/completions` (legacy text completions) is served by adapters that still speak it (openai-compatible). */
  path: "/chat/completions" | "/completions";
}

/** The upstream request for one channel, built by its adapter; its translation input is kept to read the answer. */
export function prepareChatAttempt(channel: RoutableChannel, adapter: ProviderAdapter, chat: ChatRequest): UpstreamAttempt<ChatTranslationInput> {
  const upstreamModel = upstreamModelFor(channel, chat.model);
  const build = chat.path === "/chat/completions" ? adapter.buildChatRequest : adapter.buildCompletionsRequest;
  if (!build) {
    throw new GatewayError(`The model '${chat.model}' is not served through /v1/completions; use /v1/chat/completions.`, {
      status: 400,
      code: "unsupported_endpoint",
      param: "model",
    });
  }
  const input: ChatTranslationInput = {
    channel,
    upstreamModel,
    body: chat.body,
    text: chat.text,
    stream: chat.stream,
    clientWantsUsage: chat.clientWantsUsage,
  };
  try {
    return { request: build(input), upstreamModel, translation: input };
  } catch (error) {
    if (error instanceof TranslationError) throw errors.untranslatable(error);
    throw error;
  }
}
