import { isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import { checkCarriedSchema } from "../shared/schema-bounds";
import type { AnthropicTool, AnthropicToolChoice } from "./anthropic-wire-types";
import { cacheControlOf, withCacheControl } from "./cache-breakpoints";

/** OpenAI function tools -> Anthropic custom tools (`input_schema` is required there, so an absent one is `{type:"object"}`). */
export function translateTools(tools: unknown): AnthropicTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw new TranslationError("'tools' must be an array.", "tools");
  if (tools.length === 0) return undefined;
  return tools.map((tool, index) => {
    const param = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(tool.function)) {
      throw new TranslationError(`'${param}' must be a function tool; Anthropic models take no other OpenAI tool type.`, param);
    }
    const fn = tool.function;
    if (typeof fn.name !== "string" || fn.name === "") throw new TranslationError(`'${param}.function.name' is required.`, `${param}.function.name`);
    if (isRecord(fn.parameters)) checkCarriedSchema(fn.parameters, `${param}.function.parameters`);
    const translated: AnthropicTool = {
      name: fn.name,
      ...(typeof fn.description === "string" ? { description: fn.description } : {}),
      input_schema: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} },
    };
    // A breakpoint on a tool caches every tool definition up to it.
    return withCacheControl(translated, cacheControlOf(tool.cache_control, `${param}.cache_control`));
  });
}

/**
 * OpenAI `tool_choice` and `parallel_tool_calls` -> Anthropic `tool_choice`. Anthropic keeps the parallel
 * switch inside tool_choice, so `parallel_tool_calls: false` alone yields `{type:"auto", disable_parallel_tool_use:true}`.
 */
export function translateToolChoice(toolChoice: unknown, parallelToolCalls: unknown): AnthropicToolChoice | undefined {
  let choice: AnthropicToolChoice | undefined;
  if (toolChoice === undefined || toolChoice === null) choice = undefined;
  else if (toolChoice === "auto") choice = { type: "auto" };
  else if (toolChoice === "none") choice = { type: "none" };
  else if (toolChoice === "required") choice = { type: "any" };
  else if (isRecord(toolChoice) && toolChoice.type === "function" && isRecord(toolChoice.function) && typeof toolChoice.function.name === "string") {
    choice = { type: "tool", name: toolChoice.function.name };
  } else {
    throw new TranslationError("'tool_choice' must be 'auto', 'none', 'required' or {type:'function', function:{name}}.", "tool_choice");
  }
  if (parallelToolCalls === false && choice?.type !== "none") {
    return { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true } as AnthropicToolChoice;
  }
  return choice;
}
