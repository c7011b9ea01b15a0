import { isRecord, type TokenUsage } from "@tollgate/shared";
import type { ChatStreamPart } from "@tollgate/upstream";
import { toolCallDeltas } from "../openai-chat/tool-call-delta";
import {
  chatReasoningText,
  chatReasoningTokens,
  finalResponse,
  functionCallItem,
  messageItem,
  outputId,
  outputTextPart,
  reasoningItem,
  type ResponseFrame,
  responseObject,
} from "./response-object";

/** One Responses stream event before its sequence_number (the relay numbers every frame it sends). */
export type ResponsesEvent = Record<string, unknown> & { type: string };

interface OpenCall {
  itemId: string;
  outputIndex: number;
  callId: string;
  name: string;
  arguments: string;
  done: boolean;
}

export interface ChatToResponseEventsOptions {
  frame: ResponseFrame;
  /** The billed usage when the upstream reported none: the gateway's own count of the prompt and of `produced`. */
  estimate(produced: string): Promise<TokenUsage>;
  /** The final Response object, once the stream has ended (completed or incomplete), for storage. */
  onFinal(response: Record<string, unknown>): void;
}

/**
 * Chat chunk parts (from the channel's adapter) -> the Responses event sequence (OpenAI, "Streaming
 * events"): response.created and response.in_progress; for the channel's reasoning text, a reasoning item
 * with one summary part (reasoning_summary_part.added, reasoning_summary_text.delta..., .done,
 * reasoning_summary_part.done); for the text, a message item (output_item.added,
 * content_part.added, output_text.delta..., output_text.done, content_part.done, output_item.done); for each
 * tool call a function_call item (output_item.added, function_call_arguments.delta..., .done,
 * output_item.done); then response.completed, or response.incomplete for `length`/`content_filter`, with the
 * usage. Items close in flush() or when the next kind begins, because chat streams do not say when a
 * content run or a call's arguments end. An upstream error chunk ends the stream with response.failed.
 */
export function createChatToResponseEvents(options: ChatToResponseEventsOptions): TransformStream<ChatStreamPart, ResponsesEvent> {
  const { frame } = options;
  const output: Array<Record<string, unknown>> = [];
  let started = false;
  let failed = false;
  let message: { itemId: string; outputIndex: number; text: string } | null = null;
  let reasoning: { itemId: string; outputIndex: number; text: string } | null = null;
  const calls = new Map<number, OpenCall>();
  const callOrder: OpenCall[] = [];
  let finishReason: unknown = null;
  let usage: TokenUsage | null = null;
  let reasoningTokens = 0;
  const produced: string[] = [];

  type Controller = TransformStreamDefaultController<ResponsesEvent>;
  const inProgress = () => responseObject(frame, { status: "in_progress", output: [], usage: null });

  const start = (controller: Controller) => {
    if (started) return;
    started = true;
    controller.enqueue({ type: "response.created", response: inProgress() });
    controller.enqueue({ type: "response.in_progress", response: inProgress() });
  };

  const closeReasoning = (controller: Controller) => {
    if (!reasoning) return;
    const { itemId, outputIndex, text } = reasoning;
    const place = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
    controller.enqueue({ type: "response.reasoning_summary_text.done", ...place, text });
    controller.enqueue({ type: "response.reasoning_summary_part.done", ...place, part: { type: "summary_text", text } });
    const item = reasoningItem(itemId, text);
    output[outputIndex] = item;
    controller.enqueue({ type: "response.output_item.done", output_index: outputIndex, item });
    reasoning = null;
  };

  const appendReasoning = (controller: Controller, delta: string) => {
    if (!reasoning) {
      closeMessage(controller);
      const itemId = outputId("rs");
      const outputIndex = output.length;
      reasoning = { itemId, outputIndex, text: "" };
      const item = reasoningItem(itemId, "");
      output.push(item);
      controller.enqueue({ type: "response.output_item.added", output_index: outputIndex, item });
      const part = { type: "summary_text", text: "" };
      controller.enqueue({ type: "response.reasoning_summary_part.added", item_id: itemId, output_index: outputIndex, summary_index: 0, part });
    }
    reasoning.text += delta;
    produced.push(delta);
    controller.enqueue({ type: "response.reasoning_summary_text.delta", item_id: reasoning.itemId, output_index: reasoning.outputIndex, summary_index: 0, delta });
  };

  const closeMessage = (controller: Controller) => {
    if (!message) return;
    const { itemId, outputIndex, text } = message;
    const place = { item_id: itemId, output_index: outputIndex, content_index: 0 };
    controller.enqueue({ type: "response.output_text.done", ...place, text, logprobs: [] });
    controller.enqueue({ type: "response.content_part.done", ...place, part: outputTextPart(text) });
    const item = messageItem(itemId, text, "completed");
    output[outputIndex] = item;
    controller.enqueue({ type: "response.output_item.done", output_index: outputIndex, item });
    message = null;
  };

  const closeCall = (controller: Controller, call: OpenCall) => {
    if (call.done) return;
    call.done = true;
    const place = { item_id: call.itemId, output_index: call.outputIndex };
    controller.enqueue({ type: "response.function_call_arguments.done", ...place, name: call.name, arguments: call.arguments });
    const item = functionCallItem(call.itemId, call, "completed");
    output[call.outputIndex] = item;
    controller.enqueue({ type: "response.output_item.done", output_index: call.outputIndex, item });
  };

  const appendText = (controller: Controller, delta: string) => {
    if (!message) {
      closeReasoning(controller);
      for (const call of callOrder) closeCall(controller, call);
      const itemId = outputId("msg");
      const outputIndex = output.length;
      message = { itemId, outputIndex, text: "" };
      const item = messageItem(itemId, "", "in_progress");
      output.push(item);
      controller.enqueue({ type: "response.output_item.added", output_index: outputIndex, item });
      controller.enqueue({ type: "response.content_part.added", item_id: itemId, output_index: outputIndex, content_index: 0, part: outputTextPart("") });
    }
    message.text += delta;
    produced.push(delta);
    controller.enqueue({ type: "response.output_text.delta", item_id: message.itemId, output_index: message.outputIndex, content_index: 0, delta, logprobs: [] });
  };

  const appendToolCalls = (controller: Controller, toolCalls: unknown[]) => {
    for (const [delta, open] of toolCallDeltas(toolCalls, calls, (call) => call.callId)) {
      let call = open;
      if (!call) {
        closeReasoning(controller);
        closeMessage(controller);
        call = { itemId: outputId("fc"), outputIndex: output.length, callId: delta.id ?? outputId("call"), name: delta.name ?? "", arguments: "", done: false };
        calls.set(delta.index, call);
        callOrder.push(call);
        const item = functionCallItem(call.itemId, call, "in_progress");
        output.push(item);
        controller.enqueue({ type: "response.output_item.added", output_index: call.outputIndex, item });
      }
      if (delta.arguments !== null) {
        call.arguments += delta.arguments;
        produced.push(delta.arguments);
        controller.enqueue({ type: "response.function_call_arguments.delta", item_id: call.itemId, output_index: call.outputIndex, delta: delta.arguments });
      }
    }
  };

  return new TransformStream<ChatStreamPart, ResponsesEvent>({
    transform(part, controller) {
      if (failed) return;
      if (part.type === "usage") {
        usage = part.usage;
        return;
      }
      const chunk = part.chunk;
      start(controller);
      if (isRecord(chunk.error)) {
        failed = true;
        const error = { code: "server_error", message: typeof chunk.error.message === "string" ? chunk.error.message : "The upstream stream failed." };
        controller.enqueue({ type: "response.failed", response: responseObject(frame, { status: "failed", output, usage: null, error }) });
        return;
      }
      if (chunk.usage) reasoningTokens = chatReasoningTokens(chunk.usage) || reasoningTokens;
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : null;
      if (!choice) return;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      const reasoningDelta = chatReasoningText(delta);
      if (reasoningDelta !== "") appendReasoning(controller, reasoningDelta);
      if (typeof delta.content === "string" && delta.content !== "") appendText(controller, delta.content);
      if (Array.isArray(delta.tool_calls)) appendToolCalls(controller, delta.tool_calls);
      if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
    },
    async flush(controller) {
      if (failed) return;
      start(controller);
      closeReasoning(controller);
      closeMessage(controller);
      for (const call of callOrder) closeCall(controller, call);
      const billed = usage ?? (await options.estimate(produced.join("")));
      const response = finalResponse(frame, output, finishReason, billed, reasoningTokens);
      controller.enqueue({ type: response.status === "incomplete" ? "response.incomplete" : "response.completed", response });
      options.onFinal(response);
    },
  });
}
