import { isRecord } from "@tollgate/shared";
import type { TokenUsage } from "@tollgate/shared";
import { type ChatStreamPart, extractUsage } from "@tollgate/upstream";
import { mapOpenAIFinishReason } from "./map-openai-finish-reason";
import { anthropicUsageOf } from "./map-openai-usage";
import { anthropicMessageIdOf } from "./openai-response-to-anthropic";
import { toolCallDeltas } from "../openai-chat/tool-call-delta";

/** One SSE event as Anthropic frames it: `event: <event>` then `data: <data>`. */
export interface AnthropicSseEvent {
  event: string;
  data: string;
}

export interface AnthropicStreamOptions {
  /** The model the client asked for; message_start reports it. */
  model: string;
  /** Stream the upstream's `reasoning_content` as thinking blocks (see AnthropicResponseOptions.includeThinking). */
  includeThinking?: boolean;
  /**
   * Prompt tokens for message_start, e.g. the gateway's own count; 0 when unknown. OpenAI sends usage only at
   * the end, so message_start cannot carry the upstream's figure. @anthropic-ai/sdk accepts 0 there, and
   * message_delta repeats input_tokens once known, which the SDK's accumulator copies into the final message.
   */
  inputTokens?: number;
}

type OpenBlock = { kind: "text" | "thinking" | "tool"; index: number };

/**
 * OpenAI `chat.completion.chunk` objects -> Anthropic's SSE event sequence: message_start, then for each text,
 * thinking or tool-call run a content_block_start / content_block_delta… / content_block_stop, then
 * message_delta (stop_reason, usage) and message_stop. The last two wait for flush() because OpenAI's usage
 * chunk comes after the finish_reason chunk.
 */
export function createOpenAIToAnthropicStream(options: AnthropicStreamOptions): TransformStream<ChatStreamPart, AnthropicSseEvent> {
  let started = false;
  let failed = false;
  let nextBlockIndex = 0;
  let openBlock: OpenBlock | null = null;
  /** OpenAI tool call index -> the Anthropic content block streaming it, and the call's id. */
  const toolBlocks = new Map<number, { blockIndex: number; id: string }>();
  let stopReason: string | null = null;
  let usage: TokenUsage | null = null;

  type Controller = TransformStreamDefaultController<AnthropicSseEvent>;
  const emit = (controller: Controller, type: string, payload: Record<string, unknown> = {}) => {
    controller.enqueue({ event: type, data: JSON.stringify({ type, ...payload }) });
  };

  const start = (controller: Controller, chunk: Record<string, unknown>) => {
    if (started) return;
    started = true;
    const known = extractUsage(chunk.usage);
    const startUsage = known ? anthropicUsageOf(known) : anthropicUsageOf({ promptTokens: options.inputTokens ?? 0, completionTokens: 0, cachedTokens: 0 });
    emit(controller, "message_start", {
      message: {
        id: anthropicMessageIdOf(chunk.id),
        type: "message",
        role: "assistant",
        model: options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    });
  };

  const closeBlock = (controller: Controller) => {
    if (!openBlock) return;
    emit(controller, "content_block_stop", { index: openBlock.index });
    openBlock = null;
  };

  const beginBlock = (controller: Controller, kind: OpenBlock["kind"], contentBlock: Record<string, unknown>): number => {
    closeBlock(controller);
    const index = nextBlockIndex++;
    openBlock = { kind, index };
    emit(controller, "content_block_start", { index, content_block: contentBlock });
    return index;
  };

  const appendToolCalls = (controller: Controller, toolCalls: unknown[]) => {
    for (const [delta, open] of toolCallDeltas(toolCalls, toolBlocks, (block) => block.id)) {
      let known = open;
      if (!known) {
        const id = delta.id ?? `toolu_${crypto.randomUUID().replaceAll("-", "")}`;
        const blockIndex = beginBlock(controller, "tool", { type: "tool_use", id, name: delta.name ?? "", input: {} });
        known = { blockIndex, id };
        toolBlocks.set(delta.index, known);
      }
      // A delta for an earlier call (rare, interleaved) still names its own block; the SDK applies it by index.
      if (delta.arguments !== null) {
        emit(controller, "content_block_delta", { index: known.blockIndex, delta: { type: "input_json_delta", partial_json: delta.arguments } });
      }
    }
  };

  return new TransformStream<ChatStreamPart, AnthropicSseEvent>({
    transform(part, controller) {
      // The usage part is the gateway's (billing); the client's usage comes from the usage chunk, as OpenAI sends it.
      if (failed || part.type === "usage") return;
      const chunk = part.chunk;
      if (isRecord(chunk.error)) {
        // Some OpenAI-compatible upstreams report a failure as a chunk; Anthropic clients expect an error event.
        failed = true;
        const message = typeof chunk.error.message === "string" ? chunk.error.message : "The upstream stream failed.";
        emit(controller, "error", { error: { type: "api_error", message } });
        return;
      }
      start(controller, chunk);
      const chunkUsage = extractUsage(chunk.usage);
      if (chunkUsage) usage = chunkUsage;
      const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : null;
      if (!choice) return;
      const delta = isRecord(choice.delta) ? choice.delta : {};

      const reasoning = typeof delta.reasoning_content === "string" ? delta.reasoning_content : typeof delta.reasoning === "string" ? delta.reasoning : "";
      if (options.includeThinking && reasoning !== "") {
        const index = openBlock?.kind === "thinking" ? openBlock.index : beginBlock(controller, "thinking", { type: "thinking", thinking: "", signature: "" });
        emit(controller, "content_block_delta", { index, delta: { type: "thinking_delta", thinking: reasoning } });
      }
      if (typeof delta.content === "string" && delta.content !== "") {
        const index = openBlock?.kind === "text" ? openBlock.index : beginBlock(controller, "text", { type: "text", text: "" });
        emit(controller, "content_block_delta", { index, delta: { type: "text_delta", text: delta.content } });
      }
      if (Array.isArray(delta.tool_calls)) appendToolCalls(controller, delta.tool_calls);
      if (typeof choice.finish_reason === "string") {
        stopReason = mapOpenAIFinishReason(choice.finish_reason);
        closeBlock(controller);
      }
    },
    flush(controller) {
      if (failed) return;
      start(controller, {});
      closeBlock(controller);
      const finalUsage = usage ? anthropicUsageOf(usage) : null;
      emit(controller, "message_delta", {
        delta: { stop_reason: stopReason ?? "end_turn", stop_sequence: null },
        usage: finalUsage ?? { output_tokens: 0 },
      });
      emit(controller, "message_stop");
    },
  });
}
