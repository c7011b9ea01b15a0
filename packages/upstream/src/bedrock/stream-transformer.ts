import type { TokenUsage } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import { STRUCTURED_OUTPUT_TOOL, usesStructuredOutputTool } from "../anthropic/structured-output";
import type { ChatStreamPart, ChatTranslationInput } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { oneChoiceChunks, parseEventData } from "../shared/stream-chunks";
import { finishReasonOf, openAIUsageOf, tokenUsageFromConverse } from "./extract-usage";
import { bedrockCompletionId } from "./translate-response";

/**
 * ConverseStream's events (decoded from AWS event-stream frames by the adapter's decoder: the event type as
 * `event`, the JSON payload as `data`) -> OpenAI chunks:
 * messageStart -> the role chunk; contentBlockStart with a toolUse -> a tool call's id and name;
 * contentBlockDelta -> text, reasoning_content or the tool call's argument text; messageStop -> the
 * finish_reason chunk; metadata -> the usage, sent from flush() as the usage chunk and the usage part.
 * The structured-output tool's input is the answer: its deltas go out as content. An exception frame (event
 * `error`) ends the stream with the upstream's message.
 */
export function createConverseStreamTransformer(input: ChatTranslationInput): TransformStream<EventSourceMessage, ChatStreamPart> {
  const id = bedrockCompletionId();
  const chunks = oneChoiceChunks({ id: () => id, model: input.body.model });
  const chunk = chunks.delta;
  const structured = usesStructuredOutputTool(input.body, {});
  /** Converse's contentBlockIndex -> the OpenAI tool call index, or "output" for the structured-output tool. */
  const toolBlocks = new Map<number, number | "output">();
  let usage: TokenUsage | null = null;
  let started = false;
  let answeredByOutputTool = false;

  const start = (controller: TransformStreamDefaultController<ChatStreamPart>) => {
    if (started) return;
    started = true;
    controller.enqueue(chunk({ role: "assistant", content: "" }));
  };

  return new TransformStream<EventSourceMessage, ChatStreamPart>({
    transform(event, controller) {
      const data = parseEventData(event.data, "Bedrock sent a stream event that is not JSON.");
      switch (event.event) {
        case "messageStart":
          start(controller);
          return;
        case "contentBlockStart": {
          start(controller);
          const toolUse = data.start?.toolUse;
          if (!toolUse) return;
          const blockIndex = Number(data.contentBlockIndex ?? 0);
          if (structured && toolUse.name === STRUCTURED_OUTPUT_TOOL) {
            toolBlocks.set(blockIndex, "output");
            answeredByOutputTool = true;
            return;
          }
          const callIndex = [...toolBlocks.values()].filter((value) => value !== "output").length;
          toolBlocks.set(blockIndex, callIndex);
          controller.enqueue(chunk({ tool_calls: [{ index: callIndex, id: String(toolUse.toolUseId ?? ""), type: "function", function: { name: String(toolUse.name ?? ""), arguments: "" } }] }));
          return;
        }
        case "contentBlockDelta": {
          start(controller);
          const delta = data.delta ?? {};
          const tool = toolBlocks.get(Number(data.contentBlockIndex ?? 0));
          if (typeof delta.text === "string") {
            if (delta.text !== "") controller.enqueue(chunk({ content: delta.text }));
          } else if (typeof delta.reasoningContent?.text === "string") {
            if (delta.reasoningContent.text !== "") controller.enqueue(chunk({ reasoning_content: delta.reasoningContent.text }));
          } else if (typeof delta.toolUse?.input === "string" && tool !== undefined) {
            controller.enqueue(tool === "output" ? chunk({ content: delta.toolUse.input }) : chunk({ tool_calls: [{ index: tool, function: { arguments: delta.toolUse.input } }] }));
          }
          return;
        }
        case "messageStop": {
          start(controller);
          const calledTools = [...toolBlocks.values()].some((value) => value !== "output");
          const reason = answeredByOutputTool && !calledTools ? "stop" : finishReasonOf(data.stopReason, calledTools);
          controller.enqueue(chunk({}, reason));
          return;
        }
        case "metadata":
          usage = tokenUsageFromConverse(data.usage) ?? usage;
          return;
        case "error": {
          const message = String(data.error?.message ?? "unknown error");
          throw new Error(`Bedrock ended the stream with an error: ${scrubSecret(message, input.channel.apiKey)}`);
        }
        default:
          // contentBlockStop, and event types added later: nothing the client needs.
          return;
      }
    },
    flush(controller) {
      if (!usage) return;
      controller.enqueue(chunks.usage(openAIUsageOf(usage)));
      controller.enqueue({ type: "usage", usage });
    },
  });
}
