import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";
import { UnsupportedParameter } from "./unsupported-parameter";

type ChatMessage = Record<string, unknown> & { role: string };

/** A Responses input as a list of items: a string is one user message. */
export function inputItemsOf(input: unknown): unknown[] {
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  if (Array.isArray(input)) return input;
  throw new TranslationError("'input' must be a string or an array of input items.", "input");
}

function textOfParts(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TranslationError(`'${param}' must be a string or an array of content parts.`, param);
  const texts: string[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (typeof part.text === "string") texts.push(part.text);
    else if (typeof part.refusal === "string") texts.push(part.refusal);
    else throw new UnsupportedParameter(`Content part type '${clientValueText(part.type)}' cannot be sent to this model's channel.`, param);
  }
  return texts.join("");
}

/** Input parts of a user, system or developer message -> chat content parts. */
function chatParts(content: unknown, param: string): unknown {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new TranslationError(`'${param}' must be a string or an array of content parts.`, param);
  return content.map((part, index) => {
    const where = `${param}[${index}]`;
    if (!isRecord(part)) throw new TranslationError(`'${where}' must be an object.`, where);
    switch (part.type) {
      case "input_text":
      case "output_text":
        if (part.text !== undefined && typeof part.text !== "string") throw new TranslationError(`'${where}.text' must be a string.`, `${where}.text`);
        return { type: "text", text: part.text ?? "" };
      case "input_image": {
        if (typeof part.image_url !== "string") {
          throw new UnsupportedParameter("Images by file_id cannot be sent to this model's channel; send image_url (a URL or data URL).", where);
        }
        return { type: "image_url", image_url: { url: part.image_url, ...(typeof part.detail === "string" ? { detail: part.detail } : {}) } };
      }
      case "input_file": {
        if (typeof part.file_data !== "string") {
          throw new UnsupportedParameter("Files by file_id or file_url cannot be sent to this model's channel; send file_data.", where);
        }
        return { type: "file", file: { file_data: part.file_data, ...(typeof part.filename === "string" ? { filename: part.filename } : {}) } };
      }
      default:
        throw new UnsupportedParameter(`Content part type '${clientValueText(part.type)}' cannot be sent to this model's channel.`, where);
    }
  });
}

/** A function_call_output's output: a string, or input parts whose text is kept (a tool message holds text). */
function toolOutput(output: unknown, param: string): string {
  if (typeof output === "string") return output;
  return textOfParts(output, param);
}

/**
 * Responses input items -> chat messages: messages (developer becomes system, which every channel type
 * reads), function_call items as the assistant's tool_calls (merged into the assistant message before them,
 * as chat carries text and calls in one message), function_call_output items as tool messages. Reasoning
 * items are skipped: they are a model's own opaque state, which chat upstreams neither take nor need.
 * Anything else (item references, built-in tool calls) throws TranslationError: chat cannot carry it.
 */
export function inputItemsToMessages(items: unknown[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  items.forEach((item, index) => {
    const param = `input[${index}]`;
    if (!isRecord(item)) throw new TranslationError(`'${param}' must be an object.`, param);
    const type = item.type ?? (typeof item.role === "string" ? "message" : undefined);
    switch (type) {
      case "message": {
        const role = item.role;
        if (role === "assistant") {
          messages.push({ role: "assistant", content: textOfParts(item.content, `${param}.content`) });
        } else if (role === "user" || role === "system" || role === "developer") {
          const content = chatParts(item.content, `${param}.content`);
          messages.push({ role: role === "developer" ? "system" : role, content });
        } else {
          throw new TranslationError(`'${param}.role' must be one of user, assistant, system or developer.`, `${param}.role`);
        }
        return;
      }
      case "function_call": {
        if (typeof item.call_id !== "string" || typeof item.name !== "string") {
          throw new TranslationError(`'${param}' needs call_id and name.`, param);
        }
        const call = {
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: typeof item.arguments === "string" ? item.arguments : JSON.stringify(item.arguments ?? {}) },
        };
        const last = messages.at(-1);
        if (last?.role === "assistant") {
          // Pushed in place: a long run of function_call items stays linear.
          if (Array.isArray(last.tool_calls)) last.tool_calls.push(call);
          else last.tool_calls = [call];
          if (last.content === "") last.content = null;
        } else {
          messages.push({ role: "assistant", content: null, tool_calls: [call] });
        }
        return;
      }
      case "function_call_output": {
        if (typeof item.call_id !== "string") throw new TranslationError(`'${param}.call_id' must be a string.`, `${param}.call_id`);
        messages.push({ role: "tool", tool_call_id: item.call_id, content: toolOutput(item.output, `${param}.output`) });
        return;
      }
      case "reasoning":
        return;
      default:
        throw new UnsupportedParameter(`Input items of type '${clientValueText(type)}' cannot be sent to this model's channel.`, param);
    }
  });
  return messages;
}
