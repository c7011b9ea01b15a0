import { clientValueText, isRecord } from "@tollgate/shared";
import type { OpenAIChatMessage, OpenAIContentPart, OpenAITextPart, OpenAIToolCall } from "@tollgate/upstream";
import { TranslationError } from "@tollgate/upstream";

function blocksOf(content: unknown, param: string): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw new TranslationError(`${param}: Input should be a valid string or list of content blocks`, param);
  return content.map((block, index) => {
    if (!isRecord(block)) throw new TranslationError(`${param}.${index}: Input should be a content block object`, `${param}.${index}`);
    return block;
  });
}

function textOf(block: Record<string, unknown>, param: string): string {
  if (typeof block.text !== "string") throw new TranslationError(`${param}.text: Field required`, `${param}.text`);
  return block.text;
}

function imagePart(block: Record<string, unknown>, param: string): OpenAIContentPart {
  const source = isRecord(block.source) ? block.source : {};
  if (source.type === "base64" && typeof source.media_type === "string" && typeof source.data === "string") {
    return { type: "image_url", image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  }
  if (source.type === "url" && typeof source.url === "string") return { type: "image_url", image_url: { url: source.url } };
  throw new TranslationError(`${param}.source: only base64 and url image sources can be sent to this model`, `${param}.source`);
}

function documentPart(block: Record<string, unknown>, param: string): OpenAIContentPart {
  const source = isRecord(block.source) ? block.source : {};
  if (source.type === "base64" && source.media_type === "application/pdf" && typeof source.data === "string") {
    const filename = typeof block.title === "string" && block.title !== "" ? block.title : "document.pdf";
    return { type: "file", file: { filename, file_data: `data:application/pdf;base64,${source.data}` } };
  }
  if (source.type === "text" && typeof source.data === "string") return { type: "text", text: source.data };
  throw new TranslationError(`${param}.source: only base64 PDF and plain-text documents can be sent to this model`, `${param}.source`);
}

/** A part list of one plain text is sent as a string, the form most OpenAI-compatible upstreams handle best. */
function simplified<Part extends { type: string }>(parts: Part[]): string | Part[] {
  const [only] = parts;
  if (parts.length === 1 && only?.type === "text") return (only as unknown as OpenAITextPart).text;
  return parts;
}

function toolMessage(block: Record<string, unknown>, param: string, images: OpenAIContentPart[]): OpenAIChatMessage {
  if (typeof block.tool_use_id !== "string") throw new TranslationError(`${param}.tool_use_id: Field required`, `${param}.tool_use_id`);
  let content = "";
  if (block.content !== undefined && block.content !== null) {
    const texts: string[] = [];
    blocksOf(block.content, `${param}.content`).forEach((inner, index) => {
      const innerParam = `${param}.content.${index}`;
      if (inner.type === "text") texts.push(textOf(inner, innerParam));
      // OpenAI tool messages carry text only: images a tool returned follow as user content.
      else if (inner.type === "image") images.push(imagePart(inner, innerParam));
      else throw new TranslationError(`${innerParam}.type: '${clientValueText(inner.type)}' cannot be sent to this model inside a tool result`, `${innerParam}.type`);
    });
    content = texts.join("\n");
  }
  // OpenAI tool messages have no error flag: the model is told in the text, as it would be by Anthropic's flag.
  if (block.is_error === true) content = content === "" ? "Error" : `Error: ${content}`;
  return { role: "tool", tool_call_id: block.tool_use_id, content };
}

/**
 * An Anthropic user turn -> OpenAI messages: every tool_result becomes its own `tool` message (first, as OpenAI
 * wants them right after the assistant's tool calls), the rest one `user` message.
 */
export function userTurnToOpenAI(content: unknown, param: string): OpenAIChatMessage[] {
  const toolMessages: OpenAIChatMessage[] = [];
  const parts: OpenAIContentPart[] = [];
  const toolImages: OpenAIContentPart[] = [];
  blocksOf(content, param).forEach((block, index) => {
    const blockParam = `${param}.${index}`;
    switch (block.type) {
      case "text":
        parts.push({ type: "text", text: textOf(block, blockParam) });
        break;
      case "image":
        parts.push(imagePart(block, blockParam));
        break;
      case "document":
        parts.push(documentPart(block, blockParam));
        break;
      case "tool_result":
        toolMessages.push(toolMessage(block, blockParam, toolImages));
        break;
      default:
        throw new TranslationError(`${blockParam}.type: '${clientValueText(block.type)}' blocks cannot be sent to this model`, `${blockParam}.type`, "unsupported_parameter");
    }
  });
  const userParts = [...toolImages, ...parts];
  if (userParts.length === 0) return toolMessages;
  return [...toolMessages, { role: "user", content: simplified(userParts) }];
}

/** An Anthropic assistant turn -> one OpenAI assistant message; thinking blocks are dropped (no OpenAI input for them). */
export function assistantTurnToOpenAI(content: unknown, param: string): OpenAIChatMessage {
  const texts: OpenAITextPart[] = [];
  const toolCalls: OpenAIToolCall[] = [];
  blocksOf(content, param).forEach((block, index) => {
    const blockParam = `${param}.${index}`;
    if (block.type === "text") texts.push({ type: "text", text: textOf(block, blockParam) });
    else if (block.type === "tool_use") {
      if (typeof block.id !== "string" || typeof block.name !== "string") {
        throw new TranslationError(`${blockParam}: tool_use blocks need an id and a name`, blockParam);
      }
      toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
      throw new TranslationError(`${blockParam}.type: '${clientValueText(block.type)}' blocks cannot be sent to this model`, `${blockParam}.type`, "unsupported_parameter");
    }
  });
  const nonEmpty = texts.filter((part) => part.text !== "");
  const message: OpenAIChatMessage = { role: "assistant", content: nonEmpty.length === 0 ? (toolCalls.length > 0 ? null : "") : simplified(nonEmpty) };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}
