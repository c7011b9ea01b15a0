import { clientValueText } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import type { GeminiContent, GeminiPart } from "./gemini-types";
import { textOfContent, translateContentParts } from "./translate-content-parts";

/**
 * Gemini 3 rejects a replayed functionCall part without the thoughtSignature it was sent with. Clients that
 * keep our `extra_content.google.thought_signature` get theirs back; for calls that never had one (history
 * from another model, or a client that drops unknown fields) Google documents this value as the way to skip
 * the check.
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

export interface TranslatedMessages {
  systemInstruction?: { parts: GeminiPart[] };
  contents: GeminiContent[];
}

type Message = Record<string, unknown>;

function thoughtSignatureOf(toolCall: Record<string, unknown>): string | undefined {
  const extra = toolCall.extra_content as { google?: { thought_signature?: unknown } } | undefined;
  const signature = extra?.google?.thought_signature;
  return typeof signature === "string" && signature !== "" ? signature : undefined;
}

function parseArguments(value: unknown, param: string): Record<string, unknown> {
  if (value === undefined || value === null || value === "") return {};
  if (typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== "string") throw new TranslationError("Tool call arguments must be a JSON object.", param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new TranslationError("Tool call arguments must be a JSON object.", param);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new TranslationError("Tool call arguments must be a JSON object.", param);
  }
  return parsed as Record<string, unknown>;
}

function functionCallParts(toolCalls: unknown, index: number, toolNames: Map<string, string>): GeminiPart[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.map((toolCall, callIndex) => {
    const param = `messages[${index}].tool_calls[${callIndex}]`;
    const record = (toolCall ?? {}) as Record<string, unknown>;
    const fn = record.function as { name?: unknown; arguments?: unknown } | undefined;
    if (typeof fn?.name !== "string" || fn.name === "") throw new TranslationError("A tool call needs a function name.", param);
    if (typeof record.id === "string") toolNames.set(record.id, fn.name);
    const part: GeminiPart = { functionCall: { name: fn.name, args: parseArguments(fn.arguments, `${param}.function.arguments`) } };
    const signature = thoughtSignatureOf(record) ?? (callIndex === 0 ? SKIP_THOUGHT_SIGNATURE : undefined);
    if (signature) part.thoughtSignature = signature;
    return part;
  });
}

/** Gemini wants a JSON object; a tool's text answer that is not one becomes `{ output: ... }`. */
function functionResponseBody(content: unknown, param: string): Record<string, unknown> {
  const text = typeof content === "string" ? content : textOfContent(content, param);
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { output: parsed };
  } catch {
    return { output: text };
  }
}

/**
 * OpenAI messages -> Gemini `systemInstruction` + `contents`. System and developer messages become the
 * system instruction; assistant turns are role "model"; tool results become functionResponse parts of a
 * "user" turn, named after the assistant tool call they answer (Gemini matches by name, OpenAI by id).
 * Consecutive turns of one role are merged, as Gemini expects user and model to alternate.
 */
export function translateMessages(messages: unknown): TranslatedMessages {
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new TranslationError("'messages' must be a non-empty array.", "messages");
  }
  const systemParts: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();

  const append = (role: "user" | "model", parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    // A loop, not push(...parts): a spread of a very long part list overflows the argument stack.
    if (last?.role === role) for (const part of parts) last.parts!.push(part);
    else contents.push({ role, parts });
  };

  messages.forEach((entry, index) => {
    const message = (entry ?? {}) as Message;
    const param = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOfContent(message.content, `${param}.content`);
        if (text !== "") systemParts.push({ text });
        break;
      }
      case "user":
        append("user", translateContentParts(message.content, `${param}.content`));
        break;
      case "assistant":
        append("model", [
          ...translateContentParts(message.content, `${param}.content`),
          ...functionCallParts(message.tool_calls, index, toolNames),
        ]);
        break;
      case "tool":
      case "function": {
        const id = message.tool_call_id;
        const name = (typeof id === "string" ? toolNames.get(id) : undefined) ?? message.name;
        if (typeof name !== "string" || name === "") {
          throw new TranslationError(
            "A tool message must answer a tool call of an earlier assistant message (tool_call_id not found).",
            `${param}.tool_call_id`,
          );
        }
        append("user", [{ functionResponse: { name, response: functionResponseBody(message.content, `${param}.content`) } }]);
        break;
      }
      default:
        throw new TranslationError(`Unknown message role '${clientValueText(message.role)}'.`, `${param}.role`);
    }
  });

  return { ...(systemParts.length > 0 ? { systemInstruction: { parts: systemParts } } : {}), contents };
}
