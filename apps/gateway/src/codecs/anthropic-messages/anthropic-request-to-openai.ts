import { clientValueText, isRecord } from "@tollgate/shared";
import type { OpenAIChatMessage, OpenAIChatRequest, OpenAIFunctionTool, OpenAIToolChoice } from "@tollgate/upstream";
import { TranslationError } from "@tollgate/upstream";
import { assistantTurnToOpenAI, userTurnToOpenAI } from "./anthropic-content-to-openai";

function systemMessage(system: unknown): OpenAIChatMessage | null {
  if (system === undefined || system === null || system === "") return null;
  if (typeof system === "string") return { role: "system", content: system };
  if (!Array.isArray(system)) throw new TranslationError("system: Input should be a valid string or list of text blocks", "system");
  const parts = system.map((block, index) => {
    if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
      throw new TranslationError(`system.${index}: Input should be a text block`, `system.${index}`);
    }
    return { type: "text" as const, text: block.text };
  });
  if (parts.length === 0) return null;
  return { role: "system", content: parts.length === 1 ? parts[0]!.text : parts };
}

function toolsOf(tools: unknown): OpenAIFunctionTool[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw new TranslationError("tools: Input should be a valid list", "tools");
  if (tools.length === 0) return undefined;
  return tools.map((tool, index) => {
    if (!isRecord(tool) || typeof tool.name !== "string") throw new TranslationError(`tools.${index}.name: Field required`, `tools.${index}.name`);
    if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
      // Server tools (web_search_…, bash_…, text_editor_…) run inside Anthropic; no other upstream has them.
      throw new TranslationError(
        `tools.${index}.type: '${clientValueText(tool.type)}' tools are only available from Anthropic channels`,
        `tools.${index}.type`,
        "unsupported_parameter",
      );
    }
    return {
      type: "function",
      function: {
        name: tool.name,
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        parameters: isRecord(tool.input_schema) ? tool.input_schema : { type: "object", properties: {} },
      },
    };
  });
}

function toolChoiceOf(toolChoice: unknown): { tool_choice?: OpenAIToolChoice; parallel_tool_calls?: boolean } {
  if (toolChoice === undefined || toolChoice === null) return {};
  if (!isRecord(toolChoice)) throw new TranslationError("tool_choice: Input should be an object", "tool_choice");
  const parallel = toolChoice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (toolChoice.type) {
    case "auto":
      return { tool_choice: "auto", ...parallel };
    case "any":
      return { tool_choice: "required", ...parallel };
    case "none":
      return { tool_choice: "none" };
    case "tool":
      if (typeof toolChoice.name !== "string") throw new TranslationError("tool_choice.name: Field required", "tool_choice.name");
      return { tool_choice: { type: "function", function: { name: toolChoice.name } }, ...parallel };
    default:
      throw new TranslationError("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'", "tool_choice.type");
  }
}

function requireField(body: Record<string, unknown>, name: string): unknown {
  if (body[name] === undefined || body[name] === null) throw new TranslationError(`${name}: Field required`, name);
  return body[name];
}

/**
 * An Anthropic Messages request (as @anthropic-ai/sdk and Claude Code send it) -> an OpenAI chat request that
 * any channel can serve. Errors name the parameter the way Anthropic's own do ("max_tokens: Field required").
 * `top_k` is carried as the `top_k` OpenAI-compatible servers (vLLM, Ollama) and the Anthropic and Gemini
 * adapters read; an upstream that does not know it refuses it. Left behind, having no OpenAI equivalent and
 * no effect on what the answer may contain: `thinking` (a reasoning request many OpenAI-compatible models
 * would refuse) and `cache_control` (a caching hint).
 */
export function anthropicRequestToOpenAI(body: unknown): OpenAIChatRequest {
  if (!isRecord(body)) throw new TranslationError("The request body must be a JSON object.", null);
  const model = requireField(body, "model");
  if (typeof model !== "string" || model === "") throw new TranslationError("model: Input should be a non-empty string", "model");
  const maxTokens = requireField(body, "max_tokens");
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new TranslationError("max_tokens: Input should be an integer greater than or equal to 1", "max_tokens");
  }
  const messages = requireField(body, "messages");
  if (!Array.isArray(messages)) throw new TranslationError("messages: Input should be a valid list", "messages");

  const openAIMessages: OpenAIChatMessage[] = [];
  const system = systemMessage(body.system);
  if (system) openAIMessages.push(system);
  messages.forEach((message, index) => {
    const param = `messages.${index}`;
    if (!isRecord(message)) throw new TranslationError(`${param}: Input should be an object`, param);
    // A loop, not push(...messages): a spread of a very long list overflows the argument stack.
    if (message.role === "user") for (const translated of userTurnToOpenAI(message.content, `${param}.content`)) openAIMessages.push(translated);
    else if (message.role === "assistant") openAIMessages.push(assistantTurnToOpenAI(message.content, `${param}.content`));
    else throw new TranslationError(`${param}.role: Input should be 'user' or 'assistant'`, `${param}.role`);
  });

  const request: OpenAIChatRequest = { model, messages: openAIMessages, max_tokens: maxTokens };
  const tools = toolsOf(body.tools);
  if (tools) Object.assign(request, { tools }, toolChoiceOf(body.tool_choice));
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.top_p = body.top_p;
  if (typeof body.top_k === "number") Object.assign(request, { top_k: body.top_k });
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) {
    request.stop = body.stop_sequences.filter((sequence): sequence is string => typeof sequence === "string");
  }
  if (body.stream === true) {
    request.stream = true;
    // The usage chunk is where message_delta's token counts come from.
    request.stream_options = { include_usage: true };
  }
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  if (typeof metadata.user_id === "string" && metadata.user_id !== "") request.user = metadata.user_id;
  return request;
}
