import type { TokenUsage } from "@tollgate/shared";
import { STRUCTURED_OUTPUT_TOOL, usesStructuredOutputTool } from "../anthropic/structured-output";
import type { ChatTranslationInput } from "../provider-adapter";
import type { ConverseResponse } from "./bedrock-wire-types";
import { finishReasonOf, openAIUsageOf, tokenUsageFromConverse } from "./extract-usage";

/** A completion id: Converse's answer has none of its own (its request id is a response header). */
export function bedrockCompletionId(): string {
  return `chatcmpl-bedrock-${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * A Converse answer -> OpenAI `chat.completion`: text blocks joined as the content, reasoning blocks as
 * `reasoning_content`, toolUse blocks as tool_calls, except the structured-output tool, whose input is the
 * answer's JSON text (finish_reason "stop").
 */
export function translateConverseResponse(upstreamBody: unknown, input: ChatTranslationInput): { completion: Record<string, unknown>; usage: TokenUsage | null } {
  const response = (upstreamBody ?? {}) as ConverseResponse;
  const structured = usesStructuredOutputTool(input.body, {});
  let content = "";
  let reasoning = "";
  let answeredByOutputTool = false;
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const block of response.output?.message?.content ?? []) {
    if (typeof block.text === "string") content += block.text;
    else if (typeof block.reasoningContent?.reasoningText?.text === "string") reasoning += block.reasoningContent.reasoningText.text;
    else if (block.toolUse && typeof block.toolUse === "object") {
      const { toolUseId, name, input: toolInput } = block.toolUse as { toolUseId?: string; name?: string; input?: unknown };
      if (structured && name === STRUCTURED_OUTPUT_TOOL) {
        content = JSON.stringify(toolInput ?? {});
        answeredByOutputTool = true;
        continue;
      }
      toolCalls.push({ id: String(toolUseId ?? ""), type: "function", function: { name: String(name ?? ""), arguments: JSON.stringify(toolInput ?? {}) } });
    }
  }
  const usage = tokenUsageFromConverse(response.usage);
  const finishReason = answeredByOutputTool && toolCalls.length === 0 ? "stop" : finishReasonOf(response.stopReason, toolCalls.length > 0);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content,
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    refusal: null,
  };
  return {
    completion: {
      id: bedrockCompletionId(),
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: input.body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      ...(usage ? { usage: openAIUsageOf(usage) } : {}),
    },
    usage,
  };
}
