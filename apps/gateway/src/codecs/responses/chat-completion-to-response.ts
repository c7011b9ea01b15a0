import { isRecord, type TokenUsage } from "@tollgate/shared";
import {
  chatReasoningText,
  chatReasoningTokens,
  finalResponse,
  functionCallItem,
  messageItem,
  outputId,
  reasoningItem,
  type ResponseFrame,
} from "./response-object";

/**
 * A chat completion (as the channel's adapter translated it) -> the Response object: its reasoning (if
 * any) as a reasoning item, the assistant's text
 * (or refusal) as a message item, each tool call as a function_call item, `length` and `content_filter`
 * as an incomplete response. `usage` is the billed usage (the upstream's, or the gateway's count).
 */
export function chatCompletionToResponse(completion: Record<string, unknown>, frame: ResponseFrame, usage: TokenUsage): Record<string, unknown> {
  const choice = Array.isArray(completion.choices) && isRecord(completion.choices[0]) ? completion.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const output: unknown[] = [];
  const reasoning = chatReasoningText(message);
  if (reasoning !== "") output.push(reasoningItem(outputId("rs"), reasoning));
  if (typeof message.content === "string" && message.content !== "") output.push(messageItem(outputId("msg"), message.content, "completed"));
  if (typeof message.refusal === "string" && message.refusal !== "") {
    output.push({ id: outputId("msg"), type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: message.refusal }] });
  }
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    const fn = call.function;
    output.push(
      functionCallItem(
        outputId("fc"),
        {
          callId: typeof call.id === "string" ? call.id : outputId("call"),
          name: typeof fn.name === "string" ? fn.name : "",
          arguments: typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
        },
        "completed",
      ),
    );
  }
  return finalResponse(frame, output, choice.finish_reason, usage, chatReasoningTokens(completion.usage));
}
