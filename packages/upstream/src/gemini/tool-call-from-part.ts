import type { GeminiPart } from "./gemini-types";

/**
 * A functionCall part -> an OpenAI tool call. Gemini's thoughtSignature rides along as
 * `extra_content.google.thought_signature`, the field Google's own OpenAI-compatible endpoint uses, so that a
 * client replaying the message gives it back (see translate-messages).
 */
export function toolCallFromPart(part: GeminiPart, id: string): Record<string, unknown> {
  const call = part.functionCall!;
  return {
    id,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    ...(part.thoughtSignature ? { extra_content: { google: { thought_signature: part.thoughtSignature } } } : {}),
  };
}
