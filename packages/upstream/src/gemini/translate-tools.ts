import { clientValueText } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import { cleanParametersSchema, SchemaBudget } from "./clean-json-schema";

export interface TranslatedTools {
  tools?: Array<{ functionDeclarations: Array<Record<string, unknown>> }>;
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "NONE" | "ANY"; allowedFunctionNames?: string[] } };
}

function functionDeclaration(tool: unknown, index: number, budget: SchemaBudget): Record<string, unknown> {
  const param = `tools[${index}]`;
  const record = (tool ?? {}) as Record<string, unknown>;
  if (record.type !== "function") {
    throw new TranslationError(`Tools of type '${clientValueText(record.type)}' cannot be sent to Gemini; only functions.`, `${param}.type`);
  }
  const fn = (record.function ?? {}) as Record<string, unknown>;
  if (typeof fn.name !== "string" || fn.name === "") throw new TranslationError("A function tool needs a name.", `${param}.function.name`);
  const declaration: Record<string, unknown> = { name: fn.name };
  if (typeof fn.description === "string" && fn.description !== "") declaration.description = fn.description;
  const parameters = cleanParametersSchema(fn.parameters, `${param}.function.parameters`, budget);
  if (parameters) declaration.parameters = parameters;
  return declaration;
}

function functionCallingConfig(toolChoice: unknown): NonNullable<TranslatedTools["toolConfig"]>["functionCallingConfig"] | undefined {
  if (toolChoice === undefined || toolChoice === null) return undefined;
  if (toolChoice === "auto") return { mode: "AUTO" };
  if (toolChoice === "none") return { mode: "NONE" };
  if (toolChoice === "required") return { mode: "ANY" };
  const name = (toolChoice as { function?: { name?: unknown } }).function?.name;
  if (typeof toolChoice === "object" && typeof name === "string") return { mode: "ANY", allowedFunctionNames: [name] };
  throw new TranslationError("tool_choice must be 'auto', 'none', 'required' or a named function.", "tool_choice");
}

/**
 * OpenAI `tools` + `tool_choice` -> Gemini `tools[0].functionDeclarations` + `toolConfig.functionCallingConfig`
 * ("required" and a named function are mode ANY, the latter restricted to that name).
 */
export function translateTools(tools: unknown, toolChoice: unknown, schemaBudget = new SchemaBudget()): TranslatedTools {
  const result: TranslatedTools = {};
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) throw new TranslationError("'tools' must be an array.", "tools");
    if (tools.length > 0) result.tools = [{ functionDeclarations: tools.map((tool, index) => functionDeclaration(tool, index, schemaBudget)) }];
  }
  const config = functionCallingConfig(toolChoice);
  if (config && result.tools) result.toolConfig = { functionCallingConfig: config };
  return result;
}
