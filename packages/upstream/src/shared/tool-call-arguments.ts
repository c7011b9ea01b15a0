import { isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";

/**
 * An assistant tool call's `function.arguments` (JSON text) as the object an upstream that takes tool input
 * as JSON wants (Anthropic's tool_use.input, Bedrock's toolUse.input); `upstream` names it in the refusal
 * ("Anthropic", "Bedrock"). Empty arguments are an empty object.
 */
export function toolCallInput(argumentsText: unknown, param: string, upstream: string): Record<string, unknown> {
  if (argumentsText === undefined || argumentsText === null || argumentsText === "") return {};
  if (typeof argumentsText !== "string") throw new TranslationError(`'${param}' must be a JSON string.`, param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    throw new TranslationError(`'${param}' is not valid JSON; ${upstream} needs tool-call arguments as a JSON object.`, param);
  }
  if (!isRecord(parsed)) throw new TranslationError(`'${param}' must be a JSON object for ${upstream} models.`, param);
  return parsed;
}

/** An assistant message's `tool_calls`, each checked for an id and a function name, as {id, name, input}. */
export function assistantToolCalls(message: Record<string, unknown>, param: string, upstream: string): Array<{ id: string; name: string; input: Record<string, unknown> }> {
  const toolCalls = message.tool_calls;
  if (toolCalls === undefined || toolCalls === null) return [];
  if (!Array.isArray(toolCalls)) throw new TranslationError(`'${param}.tool_calls' must be an array.`, `${param}.tool_calls`);
  return toolCalls.map((call, index) => {
    const callParam = `${param}.tool_calls[${index}]`;
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== "string" || !fn || typeof fn.name !== "string") {
      throw new TranslationError(`'${callParam}' must have an id and a function name.`, callParam);
    }
    return { id: call.id, name: fn.name, input: toolCallInput(fn.arguments, `${callParam}.function.arguments`, upstream) };
  });
}
