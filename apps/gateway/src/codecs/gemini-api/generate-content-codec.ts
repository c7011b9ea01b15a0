import type { TokenUsage } from "@tollgate/shared";
import { type ChatTranslationInput, extractUsage, type GeminiMethod, tokenUsageFromGemini, upstreamModelFor } from "@tollgate/upstream";
import { countPromptTokens, countTextTokens } from "../../accounting/count-tokens";
import { GatewayError } from "../../errors";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import type { ForwardedResponse } from "../../routing/forward-with-failover";
import { prepareChatAttempt } from "../openai-chat/prepare-chat-attempt";
import { producedText } from "../openai-chat/produced-text";
import { geminiCodecBasics } from "./gemini-error";
import { openAIResponseToGemini } from "./openai-response-to-gemini";
import { type GenerateRequest, generationNumber, parseGenerateRequest } from "./parse-generate-request";
import { relayNativeGeminiStream, relayTranslatedGeminiStream, textOfCandidates } from "./relay-gemini-stream";

interface GenerateAnswer extends WholeAnswer {
  /** The answer as an OpenAI completion (translated channels), rendered once its billed usage is known; null when relayed. */
  completion: Record<string, unknown> | null;
  produced: string;
}

/** Gemini channels get the client's own request; the translation input is null for them. */
type GenerateTranslation = ChatTranslationInput | null;

function isNative(forwarded: ForwardedResponse<GenerateTranslation>): forwarded is ForwardedResponse<null> {
  return forwarded.attempt.translation === null;
}

/** Google streams without alt=sse as one long JSON array; the gateway relays streams as server-sent events only. */
function requireSse(request: Request): void {
  if (new URL(request.url).searchParams.get("alt") === "sse") return;
  throw new GatewayError("Tollgate streams Gemini answers as server-sent events only: add alt=sse to the query (as @google/genai and Gemini CLI do).", {
    status: 400,
    code: "unsupported_parameter",
    param: "alt",
  });
}

/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent (and the same under /v1, where
 * @google/genai sends them by default) in Google's own format, with the tokens, rules and accounting of
 * every call: natively to channels whose adapter speaks the Gemini API (geminiNative), translated through
 * the chat-completions format to every other channel type; errors in Google's shape.
 */
function generateContentCodec(method: Extract<GeminiMethod, "generateContent" | "streamGenerateContent">): Codec<GenerateRequest, GenerateTranslation, GenerateAnswer> {
  const stream = method === "streamGenerateContent";
  return {
    ...geminiCodecBasics(method),
    streams: stream,

    parse({ body: json, model }, _services, request) {
      if (stream) requireSse(request);
      const generate = parseGenerateRequest(json, model, stream);
      const candidates = generationNumber(json.value, "candidateCount");
      return {
        request: generate,
        maxOutputTokens: generationNumber(json.value, "maxOutputTokens"),
        ...(candidates !== null ? { answers: candidates } : {}),
        stream,
        // The reservation is estimated from the chat messages the request amounts to.
        reservationBody: { value: generate.chat.body, bytes: json.bytes },
      };
    },

    prepare(channel, adapter, generate) {
      const upstreamModel = upstreamModelFor(channel, generate.model);
      const { body, text } = generate;
      const native = adapter.geminiNative?.({ channel, upstreamModel, method, body, text }) ?? null;
      if (native) return { request: native, upstreamModel, translation: null };
      if (generate.chatError) throw generate.chatError;
      return prepareChatAttempt(channel, adapter, generate.chat);
    },

    readWhole(text, forwarded) {
      try {
        const json = JSON.parse(text);
        if (isNative(forwarded)) return { usage: tokenUsageFromGemini(json?.usageMetadata), completion: null, produced: textOfCandidates(json), body: text };
        const { completion } = forwarded.adapter.translateChatResponse(json, forwarded.attempt.translation!);
        const choices = (completion.choices ?? []) as Array<{ message?: Record<string, unknown> }>;
        const produced = choices.map((choice) => producedText(choice.message)).join("");
        return { usage: extractUsage(completion.usage), completion, produced, body: text };
      } catch {
        return null;
      }
    },

    renderWhole(answer, usage: TokenUsage) {
      return answer.completion ? JSON.stringify(openAIResponseToGemini(answer.completion, String(answer.completion.model ?? ""), usage)) : answer.body;
    },

    relay(forwarded, generate, sink) {
      if (isNative(forwarded)) return relayNativeGeminiStream(forwarded, sink);
      return relayTranslatedGeminiStream(forwarded as ForwardedResponse<ChatTranslationInput>, generate.model, sink);
    },

    producedText: (answer) => answer.produced,

    async estimateUsage(generate, produced) {
      return { promptTokens: await countPromptTokens(generate.chat.body), completionTokens: await countTextTokens(produced), cachedTokens: 0 };
    },

  };
}

export const geminiGenerateContentCodec = generateContentCodec("generateContent");
export const geminiStreamGenerateContentCodec = generateContentCodec("streamGenerateContent");
