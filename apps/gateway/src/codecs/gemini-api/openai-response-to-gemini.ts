import type { TokenUsage } from "@tollgate/shared";
import { isRecord } from "@tollgate/shared";

/** OpenAI finish_reason -> Gemini finishReason (a call to a function is STOP in Gemini, which has no word for it). */
export function geminiFinishReason(finishReason: unknown): string | null {
  if (finishReason === null || finishReason === undefined) return null;
  if (finishReason === "length") return "MAX_TOKENS";
  if (finishReason === "content_filter") return "SAFETY";
  return "STOP";
}

/**
 * usageMetadata for a usage: candidatesTokenCount excludes the thoughts, as Gemini counts them;
 * `reasoningTokens` is the upstream's reasoning share of the completion (OpenAI's completion_tokens_details).
 */
export function usageMetadataOf(usage: TokenUsage, reasoningTokens = 0): Record<string, number> {
  const thoughts = Math.min(reasoningTokens, usage.completionTokens);
  return {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: usage.completionTokens - thoughts,
    totalTokenCount: usage.promptTokens + usage.completionTokens,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    ...(usage.cachedTokens > 0 ? { cachedContentTokenCount: usage.cachedTokens } : {}),
  };
}

/** The reasoning tokens an OpenAI usage object reports (completion_tokens_details.reasoning_tokens). */
export function reasoningTokensOf(usage: unknown): number {
  if (!isRecord(usage) || !isRecord(usage.completion_tokens_details)) return 0;
  const reasoning = usage.completion_tokens_details.reasoning_tokens;
  return typeof reasoning === "number" && reasoning > 0 ? reasoning : 0;
}

/**
 * An OpenAI tool call -> a functionCall part with its id (so that the client's functionResponse names it),
 * or null when its arguments are not a JSON object: Gemini reports such a call as MALFORMED_FUNCTION_CALL.
 */
export function functionCallPart(toolCall: unknown): Record<string, unknown> | null {
  if (!isRecord(toolCall) || !isRecord(toolCall.function)) return null;
  const { name, arguments: argumentsText } = toolCall.function;
  if (typeof name !== "string") return null;
  let args: unknown = {};
  if (typeof argumentsText === "string" && argumentsText.trim() !== "") {
    try {
      args = JSON.parse(argumentsText);
    } catch {
      return null;
    }
  }
  if (!isRecord(args)) return null;
  return { functionCall: { ...(typeof toolCall.id === "string" ? { id: toolCall.id } : {}), name, args } };
}

/** One OpenAI choice's message -> a Gemini candidate: thoughts, text, then function calls. */
function candidateOf(choice: Record<string, unknown>, position: number): Record<string, unknown> {
  const message = isRecord(choice.message) ? choice.message : {};
  const parts: Record<string, unknown>[] = [];
  if (typeof message.reasoning_content === "string" && message.reasoning_content !== "") parts.push({ text: message.reasoning_content, thought: true });
  if (typeof message.content === "string" && message.content !== "") parts.push({ text: message.content });
  let malformed = false;
  for (const toolCall of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const part = functionCallPart(toolCall);
    if (part) parts.push(part);
    else malformed = true;
  }
  const finishReason = malformed ? "MALFORMED_FUNCTION_CALL" : (geminiFinishReason(choice.finish_reason) ?? "STOP");
  return { content: { role: "model", parts }, finishReason, index: typeof choice.index === "number" ? choice.index : position };
}

/**
 * An OpenAI chat.completion -> Gemini's GenerateContentResponse (https://ai.google.dev/api/generate-content#generatecontentresponse),
 * named after the model the client asked for, with the usage it is billed for.
 */
export function openAIResponseToGemini(completion: Record<string, unknown>, model: string, usage: TokenUsage): Record<string, unknown> {
  const choices = Array.isArray(completion.choices) ? completion.choices.filter(isRecord) : [];
  return {
    candidates: choices.map(candidateOf),
    usageMetadata: usageMetadataOf(usage, reasoningTokensOf(completion.usage)),
    modelVersion: model,
    responseId: typeof completion.id === "string" ? completion.id : crypto.randomUUID(),
  };
}
