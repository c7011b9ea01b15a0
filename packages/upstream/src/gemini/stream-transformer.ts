import type { EventSourceMessage } from "eventsource-parser";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { extractUsage, openAIUsage } from "./extract-usage";
import type { GeminiErrorBody, GeminiGenerateContentResponse, GeminiUsageMetadata } from "./gemini-types";
import { scrubSecret } from "../shared/scrub-secret";
import { parseEventData } from "../shared/stream-chunks";
import { isPromptBlocked, mapFinishReason } from "./map-finish-reason";
import { completionId, responseKey, toolCallId } from "./response-identifiers";
import { toolCallFromPart } from "./tool-call-from-part";

interface ChoiceState {
  /** Tool calls sent so far for this choice: the `index` of the next tool_calls delta. */
  toolCalls: number;
  finishReason?: string;
}

/**
 * `streamGenerateContent?alt=sse` events (each a whole GenerateContentResponse holding the next piece of
 * every candidate) -> OpenAI `chat.completion.chunk`s: a role chunk when a candidate first shows up, then a
 * content, reasoning_content or tool-call delta per part (Gemini sends each functionCall complete, so each
 * becomes one complete tool_calls delta).
 *
 * The finish_reason chunks are sent from flush(), once the stream has ended: Gemini may repeat STOP on every
 * event, and says STOP in a later event than the functionCall it ends with, so only the whole stream tells
 * "tool_calls" from "stop". Then comes the usage chunk (`choices: []`) from the last usageMetadata seen
 * (Gemini's counts are cumulative), and the usage part.
 */
export function createChatStreamTransformer(input: ChatTranslationInput): TransformStream<EventSourceMessage, ChatStreamPart> {
  const created = Math.floor(Date.now() / 1000);
  const model = input.body.model;
  const choices = new Map<number, ChoiceState>();
  let key: string | undefined;
  let toolCallsInResponse = 0;
  let lastUsage: GeminiUsageMetadata | undefined;
  let promptBlocked = false;

  const chunk = (chunkChoices: unknown[], usage?: Record<string, unknown> | null): ChatStreamPart => ({
    type: "chunk",
    chunk: { id: completionId(key!), object: "chat.completion.chunk", created, model, choices: chunkChoices, ...(usage ? { usage } : {}) },
  });
  const deltaChunk = (index: number, delta: Record<string, unknown>) =>
    chunk([{ index, delta, logprobs: null, finish_reason: null }]);

  const choiceState = (index: number, controller: TransformStreamDefaultController<ChatStreamPart>) => {
    let state = choices.get(index);
    if (!state) {
      state = { toolCalls: 0 };
      choices.set(index, state);
      controller.enqueue(deltaChunk(index, { role: "assistant", content: "" }));
    }
    return state;
  };

  return new TransformStream<EventSourceMessage, ChatStreamPart>({
    transform(event, controller) {
      if (event.data === "" || event.data === "[DONE]") return;
      const response = parseEventData<GeminiGenerateContentResponse & GeminiErrorBody>(event.data, "Gemini sent a stream event that is not JSON.");
      if (response.error) {
        const message = String(response.error.message ?? response.error.status ?? "unknown error");
        throw new Error(`Gemini ended the stream with an error: ${scrubSecret(message, input.channel.apiKey)}`);
      }
      key ??= responseKey(response.responseId);
      if (extractUsage(response.usageMetadata)) lastUsage = response.usageMetadata;
      if (isPromptBlocked(response.promptFeedback?.blockReason)) promptBlocked = true;

      (response.candidates ?? []).forEach((candidate, position) => {
        const index = candidate.index ?? position;
        const state = choiceState(index, controller);
        for (const part of candidate.content?.parts ?? []) {
          if (part.functionCall) {
            const toolCall = toolCallFromPart(part, toolCallId(key!, toolCallsInResponse++));
            controller.enqueue(deltaChunk(index, { tool_calls: [{ index: state.toolCalls++, ...toolCall }] }));
          } else if (typeof part.text === "string" && part.text !== "") {
            controller.enqueue(deltaChunk(index, part.thought ? { reasoning_content: part.text } : { content: part.text }));
          }
        }
        if (candidate.finishReason) state.finishReason = candidate.finishReason;
      });
    },

    flush(controller) {
      key ??= responseKey(undefined);
      if (choices.size === 0) choiceState(0, controller);
      for (const [index, state] of choices) {
        const finishReason =
          mapFinishReason(state.finishReason, state.toolCalls > 0) ?? (promptBlocked ? "content_filter" : "stop");
        controller.enqueue(chunk([{ index, delta: {}, logprobs: null, finish_reason: finishReason }]));
      }
      const usage = extractUsage(lastUsage);
      if (usage) {
        controller.enqueue(chunk([], openAIUsage(lastUsage)));
        controller.enqueue({ type: "usage", usage });
      }
    },
  });
}
