import type { TokenUsage } from "@tollgate/shared";
import type { ChatTranslationInput } from "../provider-adapter";
import { extractUsage, openAIUsage } from "./extract-usage";
import type { GeminiCandidate, GeminiGenerateContentResponse } from "./gemini-types";
import { isPromptBlocked, mapFinishReason } from "./map-finish-reason";
import { completionId, responseKey, toolCallId } from "./response-identifiers";
import { toolCallFromPart } from "./tool-call-from-part";

function choiceFromCandidate(candidate: GeminiCandidate, position: number, nextToolCallId: () => string): Record<string, unknown> {
  let content = "";
  let reasoning = "";
  const toolCalls: Record<string, unknown>[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall) toolCalls.push(toolCallFromPart(part, nextToolCallId()));
    else if (typeof part.text === "string" && part.thought) reasoning += part.text;
    else if (typeof part.text === "string") content += part.text;
  }
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content,
    refusal: null,
  };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    index: candidate.index ?? position,
    message,
    logprobs: null,
    finish_reason: mapFinishReason(candidate.finishReason, toolCalls.length > 0) ?? "stop",
  };
}

/**
 * A generateContent answer -> an OpenAI `chat.completion` named after the public model. Text parts are the
 * content, thought parts the `reasoning_content`, functionCall parts the `tool_calls`. A prompt Gemini
 * blocked outright (promptFeedback.blockReason, no candidates) is an empty completion that finished with
 * "content_filter", which is how OpenAI reports filtered output.
 */
export function translateChatResponse(
  upstreamBody: unknown,
  input: ChatTranslationInput,
): { completion: Record<string, unknown>; usage: TokenUsage | null } {
  const response = (upstreamBody ?? {}) as GeminiGenerateContentResponse;
  const key = responseKey(response.responseId);
  let toolCalls = 0;
  const nextToolCallId = () => toolCallId(key, toolCalls++);
  const candidates = response.candidates ?? [];
  const choices =
    candidates.length > 0
      ? candidates.map((candidate, position) => choiceFromCandidate(candidate, position, nextToolCallId))
      : [
          {
            index: 0,
            message: { role: "assistant", content: "", refusal: null },
            logprobs: null,
            finish_reason: isPromptBlocked(response.promptFeedback?.blockReason) ? "content_filter" : "stop",
          },
        ];
  const usage = openAIUsage(response.usageMetadata);
  const completion: Record<string, unknown> = {
    id: completionId(key),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: input.body.model,
    choices,
    ...(usage ? { usage } : {}),
  };
  return { completion, usage: extractUsage(response.usageMetadata) };
}
