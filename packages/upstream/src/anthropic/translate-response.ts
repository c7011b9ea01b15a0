import { isRecord } from "@tollgate/shared";
import type { TokenUsage } from "@tollgate/shared";
import type { ChatTranslationInput } from "../provider-adapter";
import { openAIUsageOf, tokenUsageFromAnthropic } from "./extract-usage";
import { mapAnthropicStopReason } from "./map-finish-reason";
import { STRUCTURED_OUTPUT_TOOL, usesStructuredOutputTool } from "./structured-output";

/** `chatcmpl-` + Anthropic's message id: stable, and traceable to the upstream's logs. */
export function completionIdOf(messageId: unknown): string {
  return `chatcmpl-${typeof messageId === "string" && messageId !== "" ? messageId : crypto.randomUUID()}`;
}

/** The model the client asked for, which is what the completion must report (not the upstream id). */
export function publicModelOf(input: ChatTranslationInput): string {
  return typeof input.body.model === "string" ? input.body.model : input.upstreamModel;
}

/** A turn that ended by calling only the structured-output tool finished its answer: `stop`, not `tool_calls`. */
export function finishReasonOf(stopReason: unknown, answeredThroughOutputTool: boolean): string {
  if (answeredThroughOutputTool && stopReason === "tool_use") return "stop";
  return mapAnthropicStopReason(stopReason) ?? "stop";
}

/**
 * An Anthropic Message -> OpenAI `chat.completion`: text blocks joined into `content`, tool_use blocks as
 * `tool_calls`, thinking blocks as `reasoning_content` (the field DeepSeek and others use); the input of the
 * structured-output tool (structured-output.ts) as the content, the JSON text the client asked for.
 */
export function translateAnthropicResponse(
  upstreamBody: unknown,
  input: ChatTranslationInput,
): { completion: Record<string, unknown>; usage: TokenUsage | null } {
  if (!isRecord(upstreamBody) || !Array.isArray(upstreamBody.content)) {
    throw new Error("The Anthropic upstream answered with a body that is not a message.");
  }
  let text = "";
  let reasoning = "";
  let structured: string | null = null;
  const structuredTool = usesStructuredOutputTool(input.body, input.channel.config);
  const toolCalls: Record<string, unknown>[] = [];
  for (const block of upstreamBody.content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "thinking" && typeof block.thinking === "string") reasoning += block.thinking;
    else if (block.type === "tool_use" && structuredTool && block.name === STRUCTURED_OUTPUT_TOOL) {
      structured = JSON.stringify(block.input ?? {});
    } else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  // The structured answer is the message's whole content: text beside it would make it unparseable.
  if (structured !== null) text = structured;
  const message: Record<string, unknown> = { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text };
  if (reasoning !== "") message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  const usage = tokenUsageFromAnthropic(upstreamBody.usage);
  const completion: Record<string, unknown> = {
    id: completionIdOf(upstreamBody.id),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: publicModelOf(input),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(upstreamBody.stop_reason, structured !== null && toolCalls.length === 0) }],
  };
  if (usage) completion.usage = openAIUsageOf(usage);
  return { completion, usage };
}
