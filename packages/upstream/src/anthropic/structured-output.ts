import { isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import { checkCarriedSchema } from "../shared/schema-bounds";
import type { AnthropicMessagesRequest, AnthropicTool } from "./anthropic-wire-types";

/**
 * The tool an OpenAI `response_format` becomes on Anthropic: its input schema is the client's schema, and
 * tool_choice forces it, so the model's answer is that tool's input, a JSON object. This is the approach
 * Anthropic documents for JSON output on every Claude model ("Tool use: JSON mode",
 * https://docs.anthropic.com/en/docs/build-with-claude/tool-use#json-mode); a forced tool_choice prefills
 * the assistant turn, so no text comes before the tool_use block
 * (https://docs.anthropic.com/en/docs/build-with-claude/tool-use#forcing-tool-use).
 */
export const STRUCTURED_OUTPUT_TOOL = "json_response";

export interface StructuredOutput {
  kind: "json_object" | "json_schema";
  schema: Record<string, unknown>;
  description: string;
}

/** The client's `response_format` read and checked; null for none or `{type:"text"}`. */
export function structuredOutputOf(format: unknown): StructuredOutput | null {
  if (format === undefined || format === null) return null;
  if (!isRecord(format)) throw new TranslationError("'response_format' must be an object.", "response_format");
  if (format.type === "text") return null;
  if (format.type === "json_object") {
    return { kind: "json_object", schema: { type: "object" }, description: "Give your answer as a JSON object: this tool's input is your answer." };
  }
  if (format.type !== "json_schema") {
    throw new TranslationError("'response_format.type' must be 'text', 'json_object' or 'json_schema'.", "response_format.type");
  }
  const jsonSchema = format.json_schema;
  if (!isRecord(jsonSchema)) throw new TranslationError("Missing required parameter: 'response_format.json_schema'.", "response_format.json_schema");
  if (typeof jsonSchema.name !== "string" || jsonSchema.name === "") {
    throw new TranslationError("Missing required parameter: 'response_format.json_schema.name'.", "response_format.json_schema.name");
  }
  const schema = jsonSchema.schema ?? { type: "object" };
  if (!isRecord(schema)) throw new TranslationError("'response_format.json_schema.schema' must be a JSON Schema object.", "response_format.json_schema.schema");
  if (schema.type !== undefined && schema.type !== "object") {
    throw new TranslationError(
      "'response_format.json_schema.schema' must describe an object (type: 'object') for this model, as OpenAI's structured outputs require too.",
      "response_format.json_schema.schema",
    );
  }
  checkCarriedSchema(schema, "response_format.json_schema.schema");
  const described = typeof jsonSchema.description === "string" && jsonSchema.description !== "" ? ` ${jsonSchema.description}` : "";
  return {
    kind: "json_schema",
    schema: { type: "object", ...schema },
    description: `Give your answer as a '${jsonSchema.name}' object: this tool's input is your answer.${described}`,
  };
}

/**
 * Adds `output` to an Anthropic request. With the channel's `structuredOutput: "native"` a json_schema goes
 * as Anthropic's own `output_config.format` (for the models that have structured outputs); otherwise the
 * forced tool: alone, it is forced by name; beside the client's tools, tool_choice becomes `any` (call one
 * of the client's tools or answer through the output tool), unless the client forced a tool of its own.
 */
export function applyStructuredOutput(request: AnthropicMessagesRequest, output: StructuredOutput, mode: unknown): void {
  if (mode === "native" && output.kind === "json_schema") {
    request.output_config = { format: { type: "json_schema", schema: output.schema } };
    return;
  }
  const tools = request.tools ?? [];
  if (tools.some((tool) => tool.name === STRUCTURED_OUTPUT_TOOL)) {
    throw new TranslationError(
      `A tool may not be named '${STRUCTURED_OUTPUT_TOOL}' together with 'response_format' for this model: the gateway uses that name for the structured answer.`,
      "tools",
    );
  }
  const outputTool: AnthropicTool = { name: STRUCTURED_OUTPUT_TOOL, description: output.description, input_schema: output.schema };
  const choice = request.tool_choice;
  request.tools = [...tools, outputTool];
  if (tools.length === 0 || choice?.type === "none") {
    request.tool_choice = { type: "tool", name: STRUCTURED_OUTPUT_TOOL };
  } else if (choice === undefined || choice.type === "auto" || choice.type === "any") {
    request.tool_choice = { type: "any", ...(choice?.disable_parallel_tool_use ? { disable_parallel_tool_use: true } : {}) };
  }
}

/** The request asked for structured output through the forced tool (not natively): its tool_use is the answer text. */
export function usesStructuredOutputTool(body: Record<string, unknown>, channelConfig: Record<string, unknown>): boolean {
  const format = body.response_format;
  if (!isRecord(format) || (format.type !== "json_object" && format.type !== "json_schema")) return false;
  return !(channelConfig.structuredOutput === "native" && format.type === "json_schema");
}
