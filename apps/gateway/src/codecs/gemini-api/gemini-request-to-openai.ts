import { isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";
import { partsOf, systemTextOf, userPartToOpenAI } from "./gemini-content-to-openai";
import { generationConfigToOpenAI } from "./generation-config-to-openai";
import { toolsToOpenAI } from "./gemini-tools-to-openai";

const unsupported = (message: string, param: string) => new TranslationError(message, param, "unsupported_parameter");

/**
 * Top-level fields of a GenerateContentRequest (https://ai.google.dev/api/generate-content). `safetySettings`
 * are Google's own filter thresholds: other providers apply their own filters and have no setting for them,
 * so they are read only by Gemini channels (the README says so). `model` is the path's.
 */
const CARRIED = new Set(["contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "model"]);

interface PendingCall {
  id: string;
  name: string;
}

/**
 * Turns the model's earlier function calls and the client's answers into OpenAI's tool_calls and tool
 * messages, which pair by id: a functionCall without one gets a stable id from its place in the
 * conversation, and a functionResponse answers the call with its id, else the oldest unanswered call of its
 * name.
 */
class ToolCallIds {
  private pending: PendingCall[] = [];

  call(name: string, id: unknown, path: string): string {
    const callId = typeof id === "string" && id !== "" ? id : `call_${path.replace(/[^0-9]+/g, "_").replace(/^_|_$/g, "")}`;
    this.pending.push({ id: callId, name });
    return callId;
  }

  answer(name: string, id: unknown, path: string): string {
    let index = typeof id === "string" && id !== "" ? this.pending.findIndex((call) => call.id === id) : -1;
    if (index === -1) index = this.pending.findIndex((call) => call.name === name);
    if (index === -1) throw new TranslationError(`'${path}' answers no earlier functionCall named '${name}'.`, path);
    const [answered] = this.pending.splice(index, 1);
    return answered!.id;
  }
}

function modelTurn(parts: Record<string, unknown>[], path: string, ids: ToolCallIds): Record<string, unknown> {
  let text = "";
  const toolCalls: Record<string, unknown>[] = [];
  parts.forEach((part, index) => {
    const partPath = `${path}.parts[${index}]`;
    // Thought summaries are the model's notes from an earlier turn: Google does not read them back either.
    if (part.thought === true) return;
    if (typeof part.text === "string") text += part.text;
    else if (isRecord(part.functionCall)) {
      const { name, args, id } = part.functionCall;
      if (typeof name !== "string") throw new TranslationError(`'${partPath}.functionCall.name' must be a string.`, `${partPath}.functionCall.name`);
      const callId = ids.call(name, id, partPath);
      toolCalls.push({ id: callId, type: "function", function: { name, arguments: JSON.stringify(args ?? {}) } });
    } else throw unsupported(`'${partPath}' is not a text or functionCall part, which only Gemini channels take in a model turn.`, partPath);
  });
  return { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

function userTurn(parts: Record<string, unknown>[], path: string, ids: ToolCallIds): Record<string, unknown>[] {
  const toolMessages: Record<string, unknown>[] = [];
  const content: Record<string, unknown>[] = [];
  parts.forEach((part, index) => {
    const partPath = `${path}.parts[${index}]`;
    if (part.functionResponse === undefined) {
      content.push(userPartToOpenAI(part, partPath));
      return;
    }
    if (!isRecord(part.functionResponse)) throw new TranslationError(`'${partPath}.functionResponse' must be an object.`, `${partPath}.functionResponse`);
    const { name, response, id, parts: responseParts } = part.functionResponse;
    if (typeof name !== "string") throw new TranslationError(`'${partPath}.functionResponse.name' must be a string.`, `${partPath}.functionResponse.name`);
    if (responseParts !== undefined) throw unsupported(`'${partPath}.functionResponse.parts' (media in a function's answer) can be sent to Gemini channels only.`, `${partPath}.functionResponse.parts`);
    toolMessages.push({ role: "tool", tool_call_id: ids.answer(name, id, partPath), content: JSON.stringify(response ?? {}) });
  });
  if (content.length === 0) return toolMessages;
  const allText = content.every((part) => part.type === "text");
  const userContent = allText ? content.map((part) => part.text as string).join("") : content;
  return [...toolMessages, { role: "user", content: userContent }];
}

/**
 * A Gemini GenerateContentRequest -> the gateway's OpenAI chat body, for every channel that does not speak
 * the Gemini API: contents (text, inline images, audio and PDFs, function calls and their answers),
 * systemInstruction, tools' functionDeclarations and toolConfig, and generationConfig. What has no OpenAI
 * equivalent is refused (TranslationError unsupported_parameter, answered 400 unless a Gemini channel can
 * take the request as it is), never dropped.
 */
export function geminiRequestToOpenAI(body: Record<string, unknown>, model: string, stream: boolean): Record<string, unknown> {
  for (const key of Object.keys(body)) {
    if (!CARRIED.has(key)) throw unsupported(`'${key}' can be sent to Gemini channels only.`, key);
  }
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) throw new TranslationError("'contents' must be a non-empty array of Content objects.", "contents");
  const messages: Record<string, unknown>[] = [];
  const system = systemTextOf(body.systemInstruction);
  if (system !== null) messages.push({ role: "system", content: system });
  const ids = new ToolCallIds();
  contents.forEach((content, index) => {
    const path = `contents[${index}]`;
    const parts = partsOf(content, path);
    const role = (content as Record<string, unknown>).role;
    if (role === "model") messages.push(modelTurn(parts, path, ids));
    else if (role === undefined || role === "user" || role === "function") messages.push(...userTurn(parts, path, ids));
    else throw new TranslationError(`'${path}.role' must be 'user' or 'model'.`, `${path}.role`);
  });
  const request: Record<string, unknown> = {
    model,
    messages,
    ...toolsToOpenAI(body.tools, body.toolConfig),
    ...generationConfigToOpenAI(body.generationConfig),
  };
  if (stream) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  return request;
}
