import { isRecord } from "@tollgate/shared";
import type { AnthropicContentBlock, AnthropicMessage } from "@tollgate/upstream";
import { mapOpenAIFinishReason } from "./map-openai-finish-reason";
import { anthropicUsageFromOpenAI } from "./map-openai-usage";

export interface AnthropicResponseOptions {
  /** The model the client asked for; the reply reports it. */
  model: string;
  /**
   * Expose the upstream's reasoning (`reasoning_content`) as thinking blocks. Only when the client asked for
   * thinking: the blocks carry no signature, so Anthropic itself would refuse them if they were sent back.
   */
  includeThinking?: boolean;
}

/** `msg_` + the upstream id without OpenAI's `chatcmpl-` prefix (an id that is already `msg_…` is kept). */
export function anthropicMessageIdOf(openAIId: unknown): string {
  const raw = typeof openAIId === "string" && openAIId !== "" ? openAIId.replace(/^chatcmpl-/, "") : crypto.randomUUID().replaceAll("-", "");
  return raw.startsWith("msg_") ? raw : `msg_${raw}`;
}

/** Tool-call arguments are a JSON string in OpenAI and an object in Anthropic; a model's malformed JSON becomes {}. */
export function toolInputOf(argumentsText: unknown): Record<string, unknown> {
  if (typeof argumentsText !== "string" || argumentsText.trim() === "") return {};
  try {
    const parsed = JSON.parse(argumentsText);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

/** An OpenAI `chat.completion` -> an Anthropic Message (first choice only: Anthropic has no `n`). */
export function openAIResponseToAnthropic(completion: unknown, options: AnthropicResponseOptions): AnthropicMessage {
  const body = isRecord(completion) ? completion : {};
  const choice = Array.isArray(body.choices) && isRecord(body.choices[0]) ? body.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const content: AnthropicContentBlock[] = [];

  const reasoning = typeof message.reasoning_content === "string" ? message.reasoning_content : typeof message.reasoning === "string" ? message.reasoning : "";
  if (options.includeThinking && reasoning !== "") content.push({ type: "thinking", thinking: reasoning, signature: "" });
  const text = textOf(message.content) || (typeof message.refusal === "string" ? message.refusal : "");
  if (text !== "") content.push({ type: "text", text });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      content.push({
        type: "tool_use",
        id: typeof call.id === "string" ? call.id : `toolu_${crypto.randomUUID().replaceAll("-", "")}`,
        name: typeof call.function.name === "string" ? call.function.name : "",
        input: toolInputOf(call.function.arguments),
      });
    }
  }

  const stopReason = typeof message.refusal === "string" && message.refusal !== "" ? "refusal" : mapOpenAIFinishReason(choice.finish_reason);
  const usage = anthropicUsageFromOpenAI(body.usage) ?? { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  return {
    id: anthropicMessageIdOf(body.id),
    type: "message",
    role: "assistant",
    model: options.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  };
}
