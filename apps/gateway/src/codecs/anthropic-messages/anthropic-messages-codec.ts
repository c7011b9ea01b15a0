import { type ChatTranslationInput, extractUsage, upstreamModelFor } from "@tollgate/upstream";
import { anthropicMessageToolCalls, requestedBuiltInTools } from "../../accounting/built-in-tools";
import { countPromptTokens, countTextTokens } from "../../accounting/count-tokens";
import type { GatewayError } from "../../errors";
import { chatBodyOrStandIn } from "../chat-stand-in";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { producedText } from "../openai-chat/produced-text";
import { type ChatRequest, prepareChatAttempt } from "../openai-chat/prepare-chat-attempt";
import { anthropicErrorResponse } from "./anthropic-error";
import { anthropicRequestToOpenAI } from "./anthropic-request-to-openai";
import { extractAnthropicUsage } from "./extract-anthropic-usage";
import { openAIResponseToAnthropic } from "./openai-response-to-anthropic";
import { relayNativeStream, relayTranslatedStream } from "./relay-anthropic-stream";

interface MessagesRequest {
  /** The client's Anthropic body and its text, sent as they are to Anthropic channels. */
  body: Record<string, unknown>;
  text: string;
  /**
   * The same request in OpenAI's chat format, for every other channel type (and for local counts). When it
   * cannot be translated (server tools, their result blocks), `chatError` is what a non-Anthropic channel
   * answers, and the body holds the request as one text, for a local count only.
   */
  chat: ChatRequest;
  chatError: GatewayError | null;
  version: string | null;
  beta: string | null;
}

interface MessagesAnswer extends WholeAnswer {
  /** The answer as an OpenAI completion (translated channels), for a local count. */
  completion: Record<string, unknown> | null;
}

/** Anthropic channels get the client's own request; the translation input is null for them. */
type MessagesTranslation = ChatTranslationInput | null;

function isNative(forwarded: ForwardedResponse<MessagesTranslation>): forwarded is ForwardedResponse<null> {
  return forwarded.attempt.translation === null;
}

/**
 * POST /v1/messages in Anthropic's own format (the @anthropic-ai/sdk client, Claude Code), with the same
 * tokens, rules and accounting as /v1/chat/completions: natively to Anthropic channels, translated through
 * the chat-completions format to every other channel type; errors in Anthropic's error shape.
 */
export const anthropicMessagesCodec: Codec<MessagesRequest, MessagesTranslation, MessagesAnswer> = {
  endpoint: "messages",
  cacheable: true,
  identifiers: "anthropic",

  async parse({ body: json, model }, services, request) {
    const body = json.value;
    // Valid, but only Anthropic speaks it (server tools, their blocks): Anthropic channels take it as it is.
    const { openAIBody, chatError } = chatBodyOrStandIn(
      model,
      () => anthropicRequestToOpenAI(body) as unknown as Record<string, unknown>,
      () => ({ system: body.system, messages: body.messages, tools: body.tools }),
    );
    const stream = body.stream === true;
    return {
      request: {
        body,
        text: json.text,
        chat: { body: openAIBody, model, stream, clientWantsUsage: true, path: "/chat/completions" },
        chatError,
        version: request.headers.get("anthropic-version"),
        beta: request.headers.get("anthropic-beta"),
      },
      // max_tokens is required by the Messages API; the model's default covers a body sent without it.
      maxOutputTokens: typeof body.max_tokens === "number" ? body.max_tokens : null,
      stream,
      builtInTools: requestedBuiltInTools(body.tools, (index) => `tools.${index}.type`),
    };
  },

  prepare(channel, adapter, messages) {
    // An upstream that speaks the Messages API (for this model) gets the client's request as it came; any
    // other, its chat translation.
    const upstreamModel = upstreamModelFor(channel, messages.chat.model);
    const { body, text, version, beta } = messages;
    const native = adapter.messages?.({ channel, upstreamModel, body, text, version, beta }) ?? null;
    if (native) return { request: native, upstreamModel, translation: null };
    if (messages.chatError) throw messages.chatError;
    return prepareChatAttempt(channel, adapter, messages.chat);
  },

  readWhole(text, forwarded, messages) {
    try {
      const json = JSON.parse(text);
      if (isNative(forwarded)) return { usage: extractAnthropicUsage(json), builtInToolCalls: anthropicMessageToolCalls(json), completion: null, body: text };
      const { completion } = forwarded.adapter.translateChatResponse(json, forwarded.attempt.translation!);
      const body = JSON.stringify(openAIResponseToAnthropic(completion, { model: messages.chat.model }));
      return { usage: extractUsage(completion.usage), completion, body };
    } catch {
      return null;
    }
  },

  relay(forwarded, messages, sink) {
    if (isNative(forwarded)) return relayNativeStream(forwarded, sink);
    return relayTranslatedStream(forwarded as ForwardedResponse<ChatTranslationInput>, messages.chat.model, sink);
  },

  producedText(answer) {
    const choices = (answer.completion?.choices ?? []) as Array<{ message?: Record<string, unknown> }>;
    return choices.map((choice) => producedText(choice.message)).join("");
  },

  async estimateUsage(messages, produced) {
    return { promptTokens: await countPromptTokens(messages.chat.body), completionTokens: await countTextTokens(produced), cachedTokens: 0 };
  },

  errorResponse: (error, headers) => anthropicErrorResponse(error.status, error.message, { ...error.headers, ...headers }),
};
