import type { ChatTranslationInput } from "@tollgate/upstream";
import { type RequestedBuiltInTool, requestedBuiltInTools } from "../../accounting/built-in-tools";
import { countPromptTokens, countTextTokens } from "../../accounting/count-tokens";
import { errorResponse, errors } from "../../errors";
import type { Codec, WholeAnswer } from "../../pipeline/codec";
import { producedText } from "./produced-text";
import { relayOpenAIStream } from "./relay-openai-stream";
import { type ChatRequest, prepareChatAttempt } from "./prepare-chat-attempt";

interface ChatAnswer extends WholeAnswer {
  /** The answer as an OpenAI completion, for a local count when the upstream reported no usage. */
  completion: Record<string, unknown> | null;
}

function positiveInteger(value: unknown, param: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw errors.invalidParameter(param, `'${param}' must be a positive integer.`);
  }
  return value;
}

/**
 * Built-in tools a chat body asks for: `web_search_options` (OpenAI's search models search on every call)
 * and tools of a built-in type, which an OpenAI-compatible channel relays as they are. A chat answer does
 * not report its tool calls, so each is billed once per answered call.
 */
function chatBuiltInTools(body: Record<string, unknown>): RequestedBuiltInTool[] {
  const requested = requestedBuiltInTools(body.tools, (index) => `tools[${index}].type`);
  if (body.web_search_options !== undefined && body.web_search_options !== null) {
    requested.push({ family: "web_search", type: "web_search_options", param: "web_search_options" });
  }
  return requested;
}

/**
 * OpenAI's chat completions (`/v1/chat/completions`) and legacy text completions (`/v1/completions`): the
 * client's own format, so an OpenAI-compatible channel's answers and streams are relayed byte for byte, and
 * any other channel's are translated by its adapter.
 */
function openAICompletionsCodec(endpoint: string, path: ChatRequest["path"]): Codec<ChatRequest, ChatTranslationInput, ChatAnswer> {
  return {
    endpoint,
    cacheable: true,
    identifiers: "openai",

    async parse({ body: json, model }, services) {
      const body = json.value;
      if (path === "/chat/completions") {
        if (body.messages === undefined || body.messages === null) throw errors.missingParameter("messages");
        if (!Array.isArray(body.messages) || body.messages.length === 0) {
          throw errors.invalidParameter("messages", "'messages' must be a non-empty array.");
        }
      } else if (body.prompt === undefined || body.prompt === null) {
        throw errors.missingParameter("prompt");
      }
      const maxTokens =
        positiveInteger(body.max_completion_tokens, "max_completion_tokens") ?? positiveInteger(body.max_tokens, "max_tokens");
      const stream = body.stream === true;
      const choices = typeof body.n === "number" && body.n > 1 ? body.n : 1;
      const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
      return {
        request: { body, text: json.text, model, stream, clientWantsUsage: stream && streamOptions?.include_usage === true, path },
        maxOutputTokens: maxTokens ?? null,
        answers: choices,
        stream,
        builtInTools: chatBuiltInTools(body),
        builtInToolsPerAnswer: true,
      };
    },

    prepare: prepareChatAttempt,

    readWhole(text, { adapter, attempt }) {
      try {
        const { completion, usage } = adapter.translateChatResponse(JSON.parse(text), attempt.translation);
        return { usage, completion, body: adapter.relaysOpenAIFormat ? text : JSON.stringify(completion) };
      } catch {
        // An OpenAI-compatible answer is relayed as it came, readable or not; a translated one must be read.
        return adapter.relaysOpenAIFormat ? { usage: null, completion: null, body: text } : null;
      }
    },

    relay: (forwarded, chat, sink) => relayOpenAIStream(forwarded, chat.clientWantsUsage, sink),

    async estimateUsage(chat, produced) {
      return { promptTokens: await countPromptTokens(chat.body), completionTokens: await countTextTokens(produced), cachedTokens: 0 };
    },

    producedText(answer) {
      const choices = (answer.completion?.choices ?? []) as Array<Record<string, unknown> & { message?: Record<string, unknown> }>;
      return choices.map((choice) => producedText(choice.message ?? choice)).join("");
    },

    errorResponse,
  };
}

export const chatCompletionsCodec = openAICompletionsCodec("chat.completions", "/chat/completions");
export const textCompletionsCodec = openAICompletionsCodec("completions", "/completions");
