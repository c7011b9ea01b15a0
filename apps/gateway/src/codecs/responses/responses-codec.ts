import type { TokenUsage } from "@tollgate/shared";
import { type ChatTranslationInput, upstreamModelFor } from "@tollgate/upstream";
import { responsesToolCalls } from "../../accounting/built-in-tools";
import { countPromptTokens, countTextTokens } from "../../accounting/count-tokens";
import { errorResponse } from "../../errors";
import type { GatewayServices } from "../../gateway-services";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import type { RoutableChannel } from "../../routing/channel-catalog";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { producedText } from "../openai-chat/produced-text";
import { prepareChatAttempt } from "../openai-chat/prepare-chat-attempt";
import { extractResponsesUsage, responseOutputText } from "./extract-responses-usage";
import { parseResponsesRequest, type ResponsesRequest } from "./parse-responses-request";
import { relayNativeResponsesStream, relayTranslatedResponsesStream } from "./relay-responses-stream";
import { chatCompletionToResponse, outputId, type ResponseFrame } from "./response-object";
import { type PendingResponseSaves, saveStoredResponse } from "./stored-response-store";

/** Channels that speak the Responses API get the client's request; the translation input is null for them. */
type ResponsesTranslation = ChatTranslationInput | null;

interface ResponsesAnswer extends WholeAnswer {
  /** A translated channel's answer as a chat completion; null for a native one. */
  completion: Record<string, unknown> | null;
  /** A native channel's Response object as it came; null for a translated one. */
  response: Record<string, unknown> | null;
  frame: ResponseFrame;
  /** Stores the Response the client gets (when `store` is on). */
  save(response: Record<string, unknown>): void;
}

function isNative(forwarded: ForwardedResponse<ResponsesTranslation>): forwarded is ForwardedResponse<null> {
  return forwarded.attempt.translation === null;
}

function newFrame(parsed: ResponsesRequest): ResponseFrame {
  return { id: outputId("resp"), createdAt: Math.floor(Date.now() / 1000), model: parsed.model, body: parsed.body, store: parsed.store };
}

/**
 * Stores a finished response off the answer's path: the insert runs after the client has its answer (or
 * its last event), and a failure is logged, never answered. The stored input is the whole conversation
 * the model read, so that a follow-up replays it on any channel.
 */
function saverFor(services: GatewayServices, saves: PendingResponseSaves, parsed: ResponsesRequest, channel: RoutableChannel, native: boolean) {
  return (response: Record<string, unknown>) => {
    if (!parsed.store || typeof response.id !== "string") return;
    const row = {
      id: response.id,
      tokenId: parsed.tokenId,
      userId: parsed.userId,
      channelId: channel.id,
      native,
      model: parsed.model,
      inputItems: [...parsed.history, ...parsed.inputItems],
      response,
    };
    const saving = saveStoredResponse(services.database.db, row, parsed.retentionDays).catch((error) =>
      services.log("warn", "could not store a response", { response: row.id, error: String(error) }),
    );
    saves.track(row.id, saving);
  };
}

/**
 * Earlier turns as input for a channel that did not produce them: reasoning items are dropped (a model's
 * own encrypted state, which another channel or account cannot read), and item ids and statuses are left
 * out (ids the gateway or another upstream issued mean nothing to this one; both are optional in input).
 */
function replayable(items: unknown[]): unknown[] {
  const replayed: unknown[] = [];
  for (const item of items) {
    if (!item || typeof item !== "object") continue;
    const { id: _id, status: _status, ...rest } = item as Record<string, unknown>;
    if (rest.type !== "reasoning") replayed.push(rest);
  }
  return replayed;
}

/**
 * POST /v1/responses (OpenAI's Responses API), with the same tokens, rules and accounting as chat: relayed
 * as is to channels that speak it (OpenAI, the vendors whose preset says so, Azure on a recent API
 * version, or any channel with `config.responsesApi: true`), and translated through chat completions for
 * every other channel, answers and event streams rendered back in the Responses format. Responses are
 * stored (unless `store: false`) for previous_response_id and GET/DELETE /v1/responses/{id}.
 */
export function createResponsesCodec(
  services: GatewayServices,
  saves: PendingResponseSaves,
): Codec<ResponsesRequest, ResponsesTranslation, ResponsesAnswer> {
  const estimateUsage = async (parsed: ResponsesRequest, produced: string): Promise<TokenUsage> => ({
    promptTokens: parsed.chat
      ? await countPromptTokens(parsed.chat.body)
      : await countTextTokens(JSON.stringify([...parsed.history, ...parsed.inputItems])),
    completionTokens: await countTextTokens(produced),
    cachedTokens: 0,
  });

  return {
    endpoint: "responses",
    identifiers: "openai",

    parse: (admission, parseServices) => parseResponsesRequest(admission, parseServices, saves),

    orderChannels(parsed, candidates) {
      const previous = parsed.previous;
      if (!previous?.native) return candidates;
      // The channel that holds the response's state first; the others, if it cannot answer, get the history replayed.
      const holder = candidates.filter((channel) => channel.id === previous.channelId);
      return holder.length === 0 ? candidates : [...holder, ...candidates.filter((channel) => channel.id !== previous.channelId)];
    },

    prepare(channel, adapter, parsed) {
      if (adapter.buildResponsesRequest && adapter.speaksResponsesApi?.(channel)) {
        const upstreamModel = upstreamModelFor(channel, parsed.model);
        const keepsState = parsed.previous === null || (parsed.previous.native && parsed.previous.channelId === channel.id);
        const { previous_response_id: _previous, ...rest } = parsed.body;
        const body = keepsState ? parsed.body : { ...rest, input: [...replayable(parsed.history), ...parsed.inputItems] };
        const text = keepsState ? parsed.text : undefined;
        const request = adapter.buildResponsesRequest({ channel, upstreamModel, body, text, stream: parsed.stream });
        return { request, upstreamModel, translation: null };
      }
      if (!parsed.chat) throw parsed.chatError!;
      return prepareChatAttempt(channel, adapter, parsed.chat);
    },

    readWhole(text, forwarded, parsed) {
      const save = saverFor(services, saves, parsed, forwarded.channel, isNative(forwarded));
      const frame = newFrame(parsed);
      try {
        const json = JSON.parse(text);
        if (isNative(forwarded)) {
          return { usage: extractResponsesUsage(json), builtInToolCalls: responsesToolCalls(json), completion: null, response: json, body: text, frame, save };
        }
        const { completion, usage } = forwarded.adapter.translateChatResponse(json, forwarded.attempt.translation!);
        return { usage, completion, response: null, body: "", frame, save };
      } catch {
        return null;
      }
    },

    renderWhole(answer, usage) {
      if (answer.response) {
        answer.save(answer.response);
        return answer.body;
      }
      const response = chatCompletionToResponse(answer.completion ?? {}, answer.frame, usage);
      answer.save(response);
      return JSON.stringify(response);
    },

    relay(forwarded, parsed, sink) {
      const save = saverFor(services, saves, parsed, forwarded.channel, isNative(forwarded));
      if (isNative(forwarded)) return relayNativeResponsesStream(forwarded, sink, save);
      return relayTranslatedResponsesStream(forwarded as ForwardedResponse<ChatTranslationInput>, sink, {
        frame: newFrame(parsed),
        estimate: (produced) => estimateUsage(parsed, produced),
        onFinal: save,
      });
    },

    producedText(answer) {
      if (answer.response) return responseOutputText(answer.response);
      const choices = (answer.completion?.choices ?? []) as Array<{ message?: Record<string, unknown> }>;
      return choices.map((choice) => producedText(choice.message)).join("");
    },

    estimateUsage,

    errorResponse,
  };
}
