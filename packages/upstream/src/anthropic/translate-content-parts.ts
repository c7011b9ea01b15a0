import { clientValueText, isRecord } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import type { AnthropicContentBlock, AnthropicTextBlock } from "./anthropic-wire-types";
import { cacheControlOf, withCacheControl } from "./cache-breakpoints";
import { parseBase64DataUrl } from "../shared/parse-data-url";

/** The image types Anthropic accepts; anything else would be refused upstream with a vaguer message. */
const imageMediaTypes = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** A part's `cache_control` (checked), as the block's own: the part becomes a cache breakpoint. */
function partCacheControl(part: Record<string, unknown>, param: string) {
  return withCacheControl({}, cacheControlOf(part.cache_control, `${param}.cache_control`));
}

function textBlock(text: string, part: Record<string, unknown>, param: string): AnthropicTextBlock {
  return { type: "text", text, ...partCacheControl(part, param) };
}

/**
 * Text-only content (system, developer, assistant and tool messages) as text blocks. Empty texts are dropped:
 * Anthropic refuses empty text blocks.
 */
export function textBlocksOf(content: unknown, param: string): AnthropicTextBlock[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw new TranslationError(`'${param}' must be a string or an array of content parts.`, param);
  const blocks: AnthropicTextBlock[] = [];
  content.forEach((part, index) => {
    if (!isRecord(part)) throw new TranslationError(`'${param}[${index}]' must be a content part object.`, `${param}[${index}]`);
    // An assistant turn the model refused is replayed as what the user saw.
    const text = part.type === "text" ? part.text : part.type === "refusal" ? part.refusal : undefined;
    if (typeof text !== "string") {
      throw new TranslationError(`'${param}[${index}]' must be a text part here.`, `${param}[${index}]`);
    }
    if (text !== "") blocks.push(textBlock(text, part, `${param}[${index}]`));
  });
  return blocks;
}

function imageBlock(part: Record<string, unknown>, param: string): AnthropicContentBlock {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === "string" ? imageUrl : isRecord(imageUrl) ? imageUrl.url : undefined;
  if (typeof url !== "string" || url === "") throw new TranslationError(`'${param}.image_url.url' is required.`, `${param}.image_url.url`);
  if (url.startsWith("http://") || url.startsWith("https://")) {
    return { type: "image", source: { type: "url", url }, ...partCacheControl(part, param) };
  }
  const parsed = parseBase64DataUrl(url);
  if (!parsed) {
    throw new TranslationError(`'${param}.image_url.url' must be an http(s) URL or a base64 data: URL.`, `${param}.image_url.url`);
  }
  if (!imageMediaTypes.has(parsed.mediaType)) {
    throw new TranslationError(
      `Images of type '${parsed.mediaType}' are not supported by Anthropic models; use JPEG, PNG, GIF or WebP.`,
      `${param}.image_url.url`,
    );
  }
  return { type: "image", source: { type: "base64", media_type: parsed.mediaType, data: parsed.data }, ...partCacheControl(part, param) };
}

function documentBlock(part: Record<string, unknown>, param: string): AnthropicContentBlock {
  const file = isRecord(part.file) ? part.file : {};
  const parsed = typeof file.file_data === "string" ? parseBase64DataUrl(file.file_data) : null;
  if (!parsed || parsed.mediaType !== "application/pdf") {
    // OpenAI file ids mean nothing to Anthropic, and Anthropic reads PDFs only as base64 documents.
    throw new TranslationError(`'${param}' must carry a PDF as base64 'file_data' for Anthropic models.`, `${param}.file`);
  }
  return {
    type: "document",
    source: { type: "base64", media_type: parsed.mediaType, data: parsed.data },
    ...(typeof file.filename === "string" ? { title: file.filename } : {}),
    ...partCacheControl(part, param),
  };
}

/** A user message's content (string or text/image/file parts) as Anthropic content blocks. */
export function userContentBlocks(content: unknown, param: string): AnthropicContentBlock[] {
  if (typeof content === "string" || content === null || content === undefined) return textBlocksOf(content, param);
  if (!Array.isArray(content)) throw new TranslationError(`'${param}' must be a string or an array of content parts.`, param);
  const blocks: AnthropicContentBlock[] = [];
  content.forEach((part, index) => {
    const partParam = `${param}[${index}]`;
    if (!isRecord(part)) throw new TranslationError(`'${partParam}' must be a content part object.`, partParam);
    if (part.type === "text") {
      if (typeof part.text !== "string") throw new TranslationError(`'${partParam}.text' must be a string.`, `${partParam}.text`);
      if (part.text !== "") blocks.push(textBlock(part.text, part, partParam));
    } else if (part.type === "image_url") {
      blocks.push(imageBlock(part, partParam));
    } else if (part.type === "file") {
      blocks.push(documentBlock(part, partParam));
    } else if (part.type === "input_audio") {
      throw new TranslationError("Anthropic models do not accept audio input.", partParam);
    } else {
      throw new TranslationError(`Content parts of type '${clientValueText(part.type)}' are not supported for Anthropic models.`, `${partParam}.type`);
    }
  });
  return blocks;
}
