import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import { parseBase64DataUrl } from "../shared/parse-data-url";
import { assistantToolCalls } from "../shared/tool-call-arguments";
import { visitChatMessages } from "../shared/visit-chat-messages";
import type { ConverseContentBlock, ConverseMessage, ConverseSystemBlock } from "./bedrock-wire-types";

const CACHE_POINT = { cachePoint: { type: "default" } } as const;
/** Converse's ImageBlock formats, by the data URL's media type. */
const imageFormats: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

/** A part that carries `cache_control` ends a cached prefix: Converse marks it with a cachePoint block after it. */
function withCachePoint<Block>(block: Block, part: Record<string, unknown>): Array<Block | typeof CACHE_POINT> {
  return isRecord(part.cache_control) ? [block, CACHE_POINT] : [block];
}

function textBlocks(content: unknown, param: string): Array<{ text: string } | typeof CACHE_POINT> {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw new TranslationError(`'${param}' must be a string or an array of content parts.`, param);
  const blocks: Array<{ text: string } | typeof CACHE_POINT> = [];
  content.forEach((part, index) => {
    if (!isRecord(part)) throw new TranslationError(`'${param}[${index}]' must be a content part object.`, `${param}[${index}]`);
    const text = part.type === "text" ? part.text : part.type === "refusal" ? part.refusal : undefined;
    if (typeof text !== "string") throw new TranslationError(`'${param}[${index}]' must be a text part here.`, `${param}[${index}]`);
    // Converse refuses empty text blocks.
    if (text !== "") for (const block of withCachePoint({ text }, part)) blocks.push(block);
  });
  return blocks;
}

function imageBlock(part: Record<string, unknown>, param: string): ConverseContentBlock {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === "string" ? imageUrl : isRecord(imageUrl) ? imageUrl.url : undefined;
  if (typeof url !== "string" || url === "") throw new TranslationError(`'${param}.image_url.url' is required.`, `${param}.image_url.url`);
  const parsed = parseBase64DataUrl(url);
  if (!parsed) {
    // Converse takes image bytes or an S3 location, never a web URL the model would fetch.
    throw new TranslationError(`'${param}.image_url.url' must be a base64 data: URL for Bedrock models (they do not fetch web URLs).`, `${param}.image_url.url`, "unsupported_parameter");
  }
  const format = imageFormats[parsed.mediaType];
  if (!format) throw new TranslationError(`Images of type '${parsed.mediaType.slice(0, 60)}' are not supported by Bedrock; use PNG, JPEG, GIF or WebP.`, `${param}.image_url.url`);
  return { image: { format, source: { bytes: parsed.data } } };
}

function documentBlock(part: Record<string, unknown>, param: string): ConverseContentBlock {
  const file = isRecord(part.file) ? part.file : {};
  const parsed = typeof file.file_data === "string" ? parseBase64DataUrl(file.file_data) : null;
  if (!parsed || parsed.mediaType !== "application/pdf") {
    throw new TranslationError(`'${param}' must carry a PDF as base64 'file_data' for Bedrock models.`, `${param}.file`, "unsupported_parameter");
  }
  // Converse names each document; its name allows letters, digits, spaces, hyphens, parentheses and brackets.
  const name = (typeof file.filename === "string" ? file.filename.replace(/\.pdf$/i, "").replace(/[^\w\s()[\]-]/g, " ").trim().slice(0, 200) : "") || "document";
  return { document: { format: "pdf", name, source: { bytes: parsed.data } } };
}

function userBlocks(content: unknown, param: string): ConverseContentBlock[] {
  if (!Array.isArray(content)) return textBlocks(content, param);
  const blocks: ConverseContentBlock[] = [];
  content.forEach((part, index) => {
    const partParam = `${param}[${index}]`;
    if (!isRecord(part)) throw new TranslationError(`'${partParam}' must be a content part object.`, partParam);
    let translated: ConverseContentBlock[];
    if (part.type === "text") translated = textBlocks([part], param);
    else if (part.type === "image_url") translated = withCachePoint(imageBlock(part, partParam), part);
    else if (part.type === "file") translated = withCachePoint(documentBlock(part, partParam), part);
    else throw new TranslationError(`Content parts of type '${clientValueText(part.type)}' are not supported for Bedrock models.`, `${partParam}.type`, "unsupported_parameter");
    for (const block of translated) blocks.push(block);
  });
  return blocks;
}

function assistantBlocks(message: Record<string, unknown>, param: string): ConverseContentBlock[] {
  const blocks: ConverseContentBlock[] = textBlocks(message.content, `${param}.content`);
  for (const call of assistantToolCalls(message, param, "Bedrock")) blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: call.input } });
  return blocks;
}

function toolResultBlock(message: Record<string, unknown>, param: string): ConverseContentBlock {
  if (typeof message.tool_call_id !== "string" || message.tool_call_id === "") {
    throw new TranslationError(`'${param}.tool_call_id' is required.`, `${param}.tool_call_id`);
  }
  const texts = textBlocks(message.content, `${param}.content`).filter((block): block is { text: string } => "text" in block);
  // Converse wants at least one content block in a tool result.
  return { toolResult: { toolUseId: message.tool_call_id, content: texts.length > 0 ? texts : [{ text: "" }] } };
}

/**
 * OpenAI `messages` -> Converse's `system` blocks and alternating user/assistant `messages`: a repeated role
 * is merged into the turn before (OpenAI's `tool` messages all join one user turn, tool results first, as
 * Converse requires after an assistant's toolUse).
 */
export function translateMessages(messages: unknown): { system: ConverseSystemBlock[]; messages: ConverseMessage[] } {
  const system: ConverseSystemBlock[] = [];
  const turns: ConverseMessage[] = [];
  const append = (role: ConverseMessage["role"], blocks: ConverseContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) for (const block of blocks) last.content.push(block);
    else turns.push({ role, content: [...blocks] });
  };
  visitChatMessages(messages, "Bedrock", {
    system(message, param) {
      for (const block of textBlocks(message.content, `${param}.content`)) system.push(block);
    },
    user: (message, param) => append("user", userBlocks(message.content, `${param}.content`)),
    assistant: (message, param) => append("assistant", assistantBlocks(message, param)),
    tool: (message, param) => append("user", [toolResultBlock(message, param)]),
  });
  for (const turn of turns) {
    if (turn.role !== "user") continue;
    const results = turn.content.filter((block) => "toolResult" in block);
    if (results.length > 0 && results.length < turn.content.length) turn.content = [...results, ...turn.content.filter((block) => !("toolResult" in block))];
  }
  return { system, messages: turns };
}
