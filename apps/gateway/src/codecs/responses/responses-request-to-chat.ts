import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";
import { UnsupportedParameter } from "./unsupported-parameter";
import { inputItemsToMessages } from "./responses-input-to-messages";

/**
 * Fields a translated channel cannot honour and that change what the client gets back: refused (400
 * unsupported_parameter) rather than dropped. Native channels get them as sent.
 */
const refusedWhenTranslated: Record<string, string> = {
  background: "Background responses",
  conversation: "Conversations",
  prompt: "Prompt templates",
  top_logprobs: "Log probabilities",
  max_tool_calls: "max_tool_calls",
};

/**
 * Fields the gateway handles itself, or hints that do not change the answer and that chat upstreams do not
 * take (listed in the README): accepted on every channel.
 */
const handledOrHints = new Set([
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "text",
  "max_output_tokens",
  "temperature",
  "top_p",
  "reasoning",
  "metadata",
  "parallel_tool_calls",
  "stream",
  "stream_options",
  "store",
  "previous_response_id",
  "user",
  "include",
  "truncation",
  "service_tier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "safety_identifier",
]);

function translateTools(tools: unknown): unknown[] {
  if (!Array.isArray(tools)) throw new TranslationError("'tools' must be an array.", "tools");
  return tools.map((tool, index) => {
    if (!isRecord(tool) || tool.type !== "function") {
      const type = isRecord(tool) ? clientValueText(tool.type) : typeof tool;
      throw new UnsupportedParameter(`Tools of type '${type}' cannot be used with this model's channel; only function tools can.`, `tools[${index}]`);
    }
    if (typeof tool.name !== "string") throw new TranslationError(`'tools[${index}].name' must be a string.`, `tools[${index}].name`);
    const fn: Record<string, unknown> = { name: tool.name };
    if (typeof tool.description === "string") fn.description = tool.description;
    if (isRecord(tool.parameters)) fn.parameters = tool.parameters;
    if (typeof tool.strict === "boolean") fn.strict = tool.strict;
    return { type: "function", function: fn };
  });
}

function translateToolChoice(choice: unknown): unknown {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (isRecord(choice) && choice.type === "function" && typeof choice.name === "string") {
    return { type: "function", function: { name: choice.name } };
  }
  throw new UnsupportedParameter("This 'tool_choice' cannot be used with this model's channel: use auto, none, required or a function.", "tool_choice");
}

/** `text.format` -> chat's `response_format`; `text.verbosity` -> chat's `verbosity`. */
function translateText(text: unknown, chat: Record<string, unknown>): void {
  if (!isRecord(text)) throw new TranslationError("'text' must be an object.", "text");
  const format = text.format;
  if (format !== undefined && format !== null) {
    if (!isRecord(format)) throw new TranslationError("'text.format' must be an object.", "text.format");
    if (format.type === "json_object") chat.response_format = { type: "json_object" };
    else if (format.type === "json_schema") {
      if (typeof format.name !== "string" || !isRecord(format.schema)) {
        throw new TranslationError("'text.format' of type json_schema needs a name and a schema.", "text.format");
      }
      const schema: Record<string, unknown> = { name: format.name, schema: format.schema };
      if (typeof format.description === "string") schema.description = format.description;
      if (typeof format.strict === "boolean") schema.strict = format.strict;
      chat.response_format = { type: "json_schema", json_schema: schema };
    } else if (format.type !== "text") {
      throw new TranslationError(`'text.format.type' must be text, json_object or json_schema.`, "text.format.type");
    }
  }
  if (typeof text.verbosity === "string") chat.verbosity = text.verbosity;
}

/**
 * A Responses request -> the chat-completions body every other channel type is spoken to in, with the
 * replayed `history` (input items of earlier turns, from previous_response_id) before this request's input.
 * Throws TranslationError for what chat cannot express.
 */
export function responsesRequestToChat(body: Record<string, unknown>, history: unknown[], inputItems: unknown[]): Record<string, unknown> {
  for (const [field, label] of Object.entries(refusedWhenTranslated)) {
    const value = body[field];
    if (value === undefined || value === null || value === false) continue;
    throw new UnsupportedParameter(`${label} ('${field}') cannot be used with this model's channel, which does not speak the Responses API.`, field);
  }
  for (const field of Object.keys(body)) {
    if (!handledOrHints.has(field) && !Object.hasOwn(refusedWhenTranslated, field)) {
      throw new UnsupportedParameter(`Unknown parameter '${field}' cannot be sent to this model's channel, which does not speak the Responses API.`, field);
    }
  }
  const messages = inputItemsToMessages([...history, ...inputItems]);
  if (typeof body.instructions === "string" && body.instructions !== "") {
    messages.unshift({ role: "system", content: body.instructions });
  }
  if (messages.length === 0) throw new TranslationError("'input' must hold at least one item.", "input");
  const chat: Record<string, unknown> = { model: body.model, messages };
  if (body.stream === true) chat.stream = true;
  if (body.tools !== undefined && body.tools !== null) {
    const tools = translateTools(body.tools);
    if (tools.length > 0) chat.tools = tools;
  }
  if (body.tool_choice !== undefined && body.tool_choice !== null) chat.tool_choice = translateToolChoice(body.tool_choice);
  if (body.text !== undefined && body.text !== null) translateText(body.text, chat);
  // max_tokens rather than max_completion_tokens: every chat-only vendor takes it (Mistral, DeepSeek), and
  // OpenAI's own channels, which refuse it for reasoning models, are relayed natively.
  if (typeof body.max_output_tokens === "number") chat.max_tokens = body.max_output_tokens;
  if (typeof body.temperature === "number") chat.temperature = body.temperature;
  if (typeof body.top_p === "number") chat.top_p = body.top_p;
  if (typeof body.parallel_tool_calls === "boolean" && chat.tools) chat.parallel_tool_calls = body.parallel_tool_calls;
  if (isRecord(body.reasoning) && typeof body.reasoning.effort === "string") chat.reasoning_effort = body.reasoning.effort;
  if (typeof body.user === "string") chat.user = body.user;
  return chat;
}
