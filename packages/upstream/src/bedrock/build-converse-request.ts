import { isRecord } from "@tollgate/shared";
import { STRUCTURED_OUTPUT_TOOL, structuredOutputOf } from "../anthropic/structured-output";
import { type ChatTranslationInput, TranslationError, type UpstreamHttpRequest } from "../provider-adapter";
import { refuseUncarriedParameters } from "../shared/chat-parameters";
import { checkCarriedSchema } from "../shared/schema-bounds";
import type { ConverseRequest, ConverseTool, ConverseToolChoice } from "./bedrock-wire-types";
import { bedrockChatParameters } from "./chat-parameters";
import { translateMessages } from "./translate-messages";
import { extraHeaders, modelUrl } from "./upstream-endpoint";

function translateTools(tools: unknown): ConverseTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new TranslationError("'tools' must be an array.", "tools");
  const translatedTools: ConverseTool[] = [];
  tools.forEach((tool, index) => {
    const param = `tools[${index}]`;
    if (!isRecord(tool) || tool.type !== "function" || !isRecord(tool.function)) {
      throw new TranslationError(`'${param}' must be a function tool; Bedrock models take no other OpenAI tool type.`, param, "unsupported_parameter");
    }
    const fn = tool.function;
    if (typeof fn.name !== "string" || fn.name === "") throw new TranslationError(`'${param}.function.name' is required.`, `${param}.function.name`);
    if (fn.name === STRUCTURED_OUTPUT_TOOL) {
      throw new TranslationError(`A tool may not be named '${STRUCTURED_OUTPUT_TOOL}' for Bedrock models: the gateway uses that name for structured answers.`, `${param}.function.name`);
    }
    if (isRecord(fn.parameters)) checkCarriedSchema(fn.parameters, `${param}.function.parameters`);
    translatedTools.push({
      toolSpec: {
        name: fn.name,
        ...(typeof fn.description === "string" && fn.description !== "" ? { description: fn.description } : {}),
        inputSchema: { json: isRecord(fn.parameters) ? fn.parameters : { type: "object", properties: {} } },
      },
    });
    if (isRecord(tool.cache_control)) translatedTools.push({ cachePoint: { type: "default" } });
  });
  return translatedTools;
}

/** OpenAI tool_choice -> Converse toolChoice; Converse has no "none" (a conversation with tools may always use them). */
function translateToolChoice(toolChoice: unknown, hasTools: boolean): ConverseToolChoice | undefined {
  if (toolChoice === undefined || toolChoice === null || toolChoice === "auto") return undefined;
  if (toolChoice === "none") {
    if (!hasTools) return undefined;
    throw new TranslationError("tool_choice 'none' cannot be carried to Bedrock's Converse API, which has no such choice; send the request without tools instead.", "tool_choice", "unsupported_parameter");
  }
  if (toolChoice === "required") return { any: {} };
  if (isRecord(toolChoice) && toolChoice.type === "function" && isRecord(toolChoice.function) && typeof toolChoice.function.name === "string") {
    return { tool: { name: toolChoice.function.name } };
  }
  throw new TranslationError("'tool_choice' must be 'auto', 'none', 'required' or {type:'function', function:{name}}.", "tool_choice");
}

function inferenceConfigOf(body: Record<string, unknown>): ConverseRequest["inferenceConfig"] {
  const config: NonNullable<ConverseRequest["inferenceConfig"]> = {};
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined && maxTokens !== null) {
    if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) throw new TranslationError("'max_tokens' must be a positive integer.", "max_tokens");
    config.maxTokens = maxTokens;
  }
  for (const [name, field] of [["temperature", "temperature"], ["top_p", "topP"]] as const) {
    const value = body[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) throw new TranslationError(`'${name}' must be a number.`, name);
    config[field] = value;
  }
  const stop = body.stop;
  if (stop !== undefined && stop !== null) {
    const sequences = typeof stop === "string" ? [stop] : stop;
    if (!Array.isArray(sequences) || !sequences.every((sequence) => typeof sequence === "string")) throw new TranslationError("'stop' must be a string or an array of strings.", "stop");
    if (sequences.length > 0) config.stopSequences = sequences;
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

/**
 * OpenAI chat request -> Converse (`POST {base}/model/{modelId}/converse`, or `/converse-stream`), for
 * every model family Bedrock serves. `response_format` json_object/json_schema becomes a forced tool whose
 * input is the answer (as on Anthropic: Converse's toolConfig works for every model with tool use);
 * parameters Converse cannot carry are refused (chat-parameters.ts).
 */
export function buildConverseRequest(input: ChatTranslationInput): UpstreamHttpRequest {
  const { body, channel } = input;
  refuseUncarriedParameters(body, bedrockChatParameters, "AWS Bedrock's Converse API");
  const { system, messages } = translateMessages(body.messages);
  const tools = translateTools(body.tools);
  const hasTools = tools.some((tool) => "toolSpec" in tool);
  let toolChoice = translateToolChoice(body.tool_choice, hasTools);
  const output = structuredOutputOf(body.response_format);
  if (output) {
    tools.push({ toolSpec: { name: STRUCTURED_OUTPUT_TOOL, description: output.description, inputSchema: { json: output.schema } } });
    // Alone, the output tool is forced; beside the client's tools, one of them or the output tool must be called.
    if (!hasTools) toolChoice = { tool: { name: STRUCTURED_OUTPUT_TOOL } };
    else if (!toolChoice || "any" in toolChoice) toolChoice = { any: {} };
  }
  const inferenceConfig = inferenceConfigOf(body);
  const request: ConverseRequest = {
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(inferenceConfig ? { inferenceConfig } : {}),
    ...(tools.length > 0 ? { toolConfig: { tools, ...(toolChoice ? { toolChoice } : {}) } } : {}),
  };
  return {
    url: modelUrl(channel, input.upstreamModel, input.stream ? "converse-stream" : "converse"),
    headers: { "content-type": "application/json", accept: input.stream ? "application/vnd.amazon.eventstream" : "application/json", ...extraHeaders(channel) },
    body: JSON.stringify(request),
  };
}
