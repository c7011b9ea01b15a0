import type { TokenUsage } from "@tollgate/shared";
import { isRecord } from "@tollgate/shared";
import type { ChatStreamPart } from "@tollgate/upstream";
import { producedText } from "../openai-chat/produced-text";
import { functionCallPart, geminiFinishReason, reasoningTokensOf, usageMetadataOf } from "./openai-response-to-gemini";

interface PendingToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/** What the stream hands the relay: Gemini events to send, and what the accounting reads. */
export interface GeminiStreamState {
  usage: TokenUsage | null;
  produced: string[];
}

/**
 * OpenAI chat chunks (an adapter's ChatStreamParts) -> Gemini stream events, each a GenerateContentResponse
 * as `streamGenerateContent?alt=sse` sends them: text and thought deltas as they come; a function call
 * once its arguments are whole (Gemini sends calls whole), with the candidate's finishReason; usageMetadata
 * on the last event, which waits for the usage that OpenAI sends after the finish.
 */
export function createOpenAIToGeminiStream(model: string, state: GeminiStreamState): TransformStream<ChatStreamPart, Record<string, unknown>> {
  let responseId: string = crypto.randomUUID();
  const toolCalls = new Map<number, Map<number, PendingToolCall>>();
  const finished: Record<string, unknown>[] = [];
  let reasoningTokens = 0;
  const event = (candidates: Record<string, unknown>[]) => ({ candidates, modelVersion: model, responseId });
  return new TransformStream({
    transform(part, controller) {
      if (part.type === "usage") {
        state.usage = part.usage;
        return;
      }
      const chunk = part.chunk;
      if (typeof chunk.id === "string") responseId = chunk.id;
      if (chunk.usage) reasoningTokens = reasoningTokensOf(chunk.usage);
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices.filter(isRecord) : []) {
        const index = typeof choice.index === "number" ? choice.index : 0;
        const delta = isRecord(choice.delta) ? choice.delta : {};
        const text = producedText(delta);
        if (text) state.produced.push(text);
        const parts: Record<string, unknown>[] = [];
        if (typeof delta.reasoning_content === "string" && delta.reasoning_content !== "") parts.push({ text: delta.reasoning_content, thought: true });
        if (typeof delta.content === "string" && delta.content !== "") parts.push({ text: delta.content });
        for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isRecord) : []) {
          const calls = toolCalls.get(index) ?? new Map<number, PendingToolCall>();
          toolCalls.set(index, calls);
          const position = typeof call.index === "number" ? call.index : calls.size;
          const pending = calls.get(position) ?? { name: "", arguments: "" };
          const fn = isRecord(call.function) ? call.function : {};
          if (typeof call.id === "string") pending.id = call.id;
          if (typeof fn.name === "string") pending.name += fn.name;
          if (typeof fn.arguments === "string") pending.arguments += fn.arguments;
          calls.set(position, pending);
        }
        const finishReason = geminiFinishReason(choice.finish_reason);
        if (finishReason === null) {
          if (parts.length > 0) controller.enqueue(event([{ content: { role: "model", parts }, index }]));
          continue;
        }
        let malformed = false;
        for (const pending of toolCalls.get(index)?.values() ?? []) {
          const call = functionCallPart({ id: pending.id, function: { name: pending.name, arguments: pending.arguments } });
          if (call) parts.push(call);
          else malformed = true;
        }
        toolCalls.delete(index);
        finished.push({ content: { role: "model", parts }, finishReason: malformed ? "MALFORMED_FUNCTION_CALL" : finishReason, index });
      }
    },
    flush(controller) {
      if (finished.length === 0 && state.usage === null) return;
      const last: Record<string, unknown> = event(finished.length > 0 ? finished : []);
      if (state.usage) last.usageMetadata = usageMetadataOf(state.usage, reasoningTokens);
      controller.enqueue(last);
    },
  });
}
