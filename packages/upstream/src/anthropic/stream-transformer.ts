import { isRecord } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { createAnthropicUsageAccumulator, openAIUsageOf } from "./extract-usage";
import { scrubSecret } from "../shared/scrub-secret";
import { oneChoiceChunks, parseEventData } from "../shared/stream-chunks";
import { STRUCTURED_OUTPUT_TOOL, usesStructuredOutputTool } from "./structured-output";
import { completionIdOf, finishReasonOf, publicModelOf } from "./translate-response";

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : null;
}

/** Raised for an `error` event inside a 200 stream (e.g. overloaded_error), so that the gateway ends the stream with an error. */
export class AnthropicStreamError extends Error {
  constructor(
    readonly errorType: string,
    message: string,
  ) {
    super(`The Anthropic upstream failed mid-stream (${errorType}): ${message}`);
  }
}

/**
 * Anthropic's SSE events -> OpenAI `chat.completion.chunk` objects. Anthropic numbers content blocks across
 * text, thinking and tool_use; OpenAI numbers tool calls on their own, so the state maps one to the other.
 * Usage arrives in two halves (input in message_start, output in message_delta, both cumulative): it is
 * reported (a usage part) at message_stop and emitted as the final chunk from flush(), when the upstream sent any.
 * The structured-output tool's input (structured-output.ts) streams as content deltas, the JSON text asked for.
 */
export function createAnthropicStreamTransformer(input: ChatTranslationInput): TransformStream<EventSourceMessage, ChatStreamPart> {
  let id = completionIdOf(undefined);
  const chunks = oneChoiceChunks({ id: () => id, model: publicModelOf(input) });
  const chunk = chunks.delta;
  let usageReported = false;
  let finished = false;
  const usage = createAnthropicUsageAccumulator();
  /** Anthropic content block index -> OpenAI tool call index. */
  const toolCallIndexByBlock = new Map<number, number>();
  const structuredTool = usesStructuredOutputTool(input.body, input.channel.config);
  /** The block of the structured-output tool, whose input JSON streams as content deltas. */
  let structuredBlock: number | null = null;

  const reportUsage = (controller: TransformStreamDefaultController<ChatStreamPart>) => {
    if (usageReported || !usage.usage) return;
    usageReported = true;
    controller.enqueue({ type: "usage", usage: usage.usage });
  };

  return new TransformStream<EventSourceMessage, ChatStreamPart>({
    transform(message, controller) {
      const event = parseEventData<Record<string, unknown>>(message.data, `The Anthropic upstream sent an event that is not JSON (${message.event ?? "message"}).`);
      const type = typeof event.type === "string" ? event.type : message.event;
      switch (type) {
        case "message_start": {
          const started = isRecord(event.message) ? event.message : {};
          id = completionIdOf(started.id);
          usage.add(started.usage);
          controller.enqueue(chunk({ role: "assistant", content: "" }));
          return;
        }
        case "content_block_start": {
          const block = isRecord(event.content_block) ? event.content_block : {};
          const blockIndex = count(event.index) ?? 0;
          if (block.type === "tool_use" && structuredTool && block.name === STRUCTURED_OUTPUT_TOOL) {
            structuredBlock = blockIndex;
          } else if (block.type === "tool_use") {
            const toolCallIndex = toolCallIndexByBlock.size;
            toolCallIndexByBlock.set(blockIndex, toolCallIndex);
            controller.enqueue(
              chunk({ tool_calls: [{ index: toolCallIndex, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] }),
            );
          } else if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
            controller.enqueue(chunk({ content: block.text }));
          }
          return;
        }
        case "content_block_delta": {
          const delta = isRecord(event.delta) ? event.delta : {};
          if (delta.type === "text_delta" && typeof delta.text === "string") {
            controller.enqueue(chunk({ content: delta.text }));
          } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
            controller.enqueue(chunk({ reasoning_content: delta.thinking }));
          } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string" && delta.partial_json !== "") {
            if (structuredBlock !== null && count(event.index) === structuredBlock) {
              controller.enqueue(chunk({ content: delta.partial_json }));
              return;
            }
            const toolCallIndex = toolCallIndexByBlock.get(count(event.index) ?? -1);
            if (toolCallIndex !== undefined) {
              controller.enqueue(chunk({ tool_calls: [{ index: toolCallIndex, function: { arguments: delta.partial_json } }] }));
            }
          }
          // signature_delta and citations_delta have no OpenAI counterpart.
          return;
        }
        case "message_delta": {
          usage.add(event.usage);
          const delta = isRecord(event.delta) ? event.delta : {};
          const finishReason =
            delta.stop_reason === undefined || delta.stop_reason === null
              ? null
              : finishReasonOf(delta.stop_reason, structuredBlock !== null && toolCallIndexByBlock.size === 0);
          // Anthropic may send more than one message_delta; OpenAI clients expect one finish_reason.
          if (finishReason && !finished) {
            finished = true;
            controller.enqueue(chunk({}, finishReason));
          }
          return;
        }
        case "message_stop":
          reportUsage(controller);
          return;
        case "error": {
          const error = isRecord(event.error) ? event.error : {};
          const text = typeof error.message === "string" ? error.message : "no message";
          throw new AnthropicStreamError(typeof error.type === "string" ? error.type : "error", scrubSecret(text, input.channel.apiKey));
        }
        default:
          // ping, content_block_stop, and event types added later (Anthropic's versioning policy allows new ones).
          return;
      }
    },
    flush(controller) {
      const final = usage.usage;
      if (!final) return;
      reportUsage(controller);
      controller.enqueue(chunks.usage(openAIUsageOf(final)));
    },
  });
}
