import { isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";
import { geminiSchemaToJsonSchema } from "./gemini-schema-to-json-schema";

const unsupported = (message: string, param: string) => new TranslationError(message, param, "unsupported_parameter");

/** What a FunctionDeclaration may carry besides its schema; `response`/`responseJsonSchema` describe its answer, which OpenAI's tools do not. */
const DECLARATION_FIELDS = new Set(["name", "description", "parameters", "parametersJsonSchema", "response", "responseJsonSchema"]);

function functionTool(declaration: unknown, path: string): Record<string, unknown> {
  if (!isRecord(declaration)) throw new TranslationError(`'${path}' must be a FunctionDeclaration object.`, path);
  for (const key of Object.keys(declaration)) {
    if (!DECLARATION_FIELDS.has(key)) throw unsupported(`'${path}.${key}' can be sent to Gemini channels only.`, `${path}.${key}`);
  }
  const { name, description, parameters, parametersJsonSchema } = declaration;
  if (typeof name !== "string" || name === "") throw new TranslationError(`'${path}.name' must be a non-empty string.`, `${path}.name`);
  let schema: Record<string, unknown> = { type: "object", properties: {} };
  if (parametersJsonSchema !== undefined) {
    if (!isRecord(parametersJsonSchema)) throw new TranslationError(`'${path}.parametersJsonSchema' must be a JSON Schema object.`, `${path}.parametersJsonSchema`);
    schema = parametersJsonSchema;
  } else if (parameters !== undefined) schema = geminiSchemaToJsonSchema(parameters, `${path}.parameters`);
  return { type: "function", function: { name, ...(typeof description === "string" ? { description } : {}), parameters: schema } };
}

/** functionCallingConfig (https://ai.google.dev/api/caching#FunctionCallingConfig) -> OpenAI's tool_choice, and the tools it allows. */
function toolChoice(toolConfig: unknown, tools: Record<string, unknown>[]): { tool_choice?: unknown; tools?: Record<string, unknown>[] } {
  if (toolConfig === undefined || toolConfig === null) return {};
  if (!isRecord(toolConfig)) throw new TranslationError("'toolConfig' must be an object.", "toolConfig");
  for (const key of Object.keys(toolConfig)) {
    if (key !== "functionCallingConfig") throw unsupported(`'toolConfig.${key}' can be sent to Gemini channels only.`, `toolConfig.${key}`);
  }
  const config = toolConfig.functionCallingConfig;
  if (config === undefined || config === null) return {};
  if (!isRecord(config)) throw new TranslationError("'toolConfig.functionCallingConfig' must be an object.", "toolConfig.functionCallingConfig");
  const mode = typeof config.mode === "string" ? config.mode.toUpperCase() : "AUTO";
  const allowed = config.allowedFunctionNames;
  if (allowed !== undefined && (!Array.isArray(allowed) || !allowed.every((name) => typeof name === "string"))) {
    throw new TranslationError("'toolConfig.functionCallingConfig.allowedFunctionNames' must be an array of strings.", "toolConfig.functionCallingConfig.allowedFunctionNames");
  }
  // VALIDATED lets the model choose between text and calls, as AUTO does; Gemini checks the calls' schema either way.
  if (mode === "AUTO" || mode === "VALIDATED" || mode === "MODE_UNSPECIFIED") return { tool_choice: "auto" };
  if (mode === "NONE") return { tool_choice: "none" };
  if (mode !== "ANY") throw new TranslationError("'toolConfig.functionCallingConfig.mode' must be AUTO, ANY, NONE or VALIDATED.", "toolConfig.functionCallingConfig.mode");
  if (!allowed || allowed.length === 0) return { tool_choice: "required" };
  if (allowed.length === 1) return { tool_choice: { type: "function", function: { name: allowed[0] } } };
  // ANY among some functions: the model is offered only those, and must call one.
  return { tool_choice: "required", tools: tools.filter((tool) => allowed.includes((tool.function as { name: string }).name)) };
}

/**
 * tools[].functionDeclarations (schemas in Google's Schema, or as JSON Schema in parametersJsonSchema) ->
 * OpenAI function tools, with toolConfig as tool_choice. Google's built-in tools (googleSearch,
 * codeExecution, urlContext, ...) run inside Gemini: refused for other channels.
 */
export function toolsToOpenAI(geminiTools: unknown, toolConfig: unknown): Record<string, unknown> {
  if (geminiTools === undefined || geminiTools === null) return toolChoice(toolConfig, []);
  if (!Array.isArray(geminiTools)) throw new TranslationError("'tools' must be an array of Tool objects.", "tools");
  const tools: Record<string, unknown>[] = [];
  geminiTools.forEach((tool, index) => {
    if (!isRecord(tool)) throw new TranslationError(`'tools[${index}]' must be a Tool object.`, `tools[${index}]`);
    for (const [key, value] of Object.entries(tool)) {
      if (key !== "functionDeclarations") throw unsupported(`'tools[${index}].${key}' runs inside Gemini: it can be sent to Gemini channels only.`, `tools[${index}].${key}`);
      if (!Array.isArray(value)) throw new TranslationError(`'tools[${index}].functionDeclarations' must be an array.`, `tools[${index}].functionDeclarations`);
      value.forEach((declaration, position) => tools.push(functionTool(declaration, `tools[${index}].functionDeclarations[${position}]`)));
    }
  });
  const choice = toolChoice(toolConfig, tools);
  const offered = choice.tools ?? tools;
  return { ...(offered.length > 0 ? { tools: offered } : {}), ...(choice.tool_choice !== undefined ? { tool_choice: choice.tool_choice } : {}) };
}
