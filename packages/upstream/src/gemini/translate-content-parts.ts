import { clientValueText } from "@tollgate/shared";
import { TranslationError } from "../provider-adapter";
import { parseDataUrl } from "../shared/parse-data-url";
import type { GeminiPart } from "./gemini-types";

const MIME_TYPES_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4",
};

/** A guess from the URL's extension; Gemini needs a mimeType with fileData and cannot sniff one. */
export function guessMimeType(url: string, fallback: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not a URL: use the string as it is.
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && MIME_TYPES_BY_EXTENSION[extension]) || fallback;
}

/** Percent-decoding of a data URL's text; a malformed escape is the client's mistake, not a URIError. */
function percentDecoded(text: string, param: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new TranslationError("A data: URL that is not base64 must be percent-encoded text.", param);
  }
}

/** `data:<mime>[;base64],<data>` -> inlineData, or null when the string is not a data URL. */
function inlineDataFromDataUrl(url: string, param: string): GeminiPart | null {
  const parsed = parseDataUrl(url);
  if (!parsed || parsed.mediaType === "") return null;
  const isBase64 = parsed.parameters.includes("base64");
  const data = isBase64 ? parsed.data : Buffer.from(percentDecoded(parsed.data, param), "utf8").toString("base64");
  return { inlineData: { mimeType: parsed.mediaType, data } };
}

function imagePart(url: unknown, param: string): GeminiPart {
  if (typeof url !== "string" || url === "") throw new TranslationError("An image_url part needs a url.", param);
  const inline = inlineDataFromDataUrl(url, param);
  if (inline) return inline;
  if (/^https?:\/\//i.test(url) || url.startsWith("gs://")) {
    return { fileData: { mimeType: guessMimeType(url, "image/jpeg"), fileUri: url } };
  }
  throw new TranslationError("An image_url must be a data: URL or an http(s) URL.", param);
}

function partFromOpenAIPart(part: unknown, param: string): GeminiPart | null {
  if (!part || typeof part !== "object") throw new TranslationError("A content part must be an object.", param);
  const record = part as Record<string, unknown>;
  switch (record.type) {
    case "text":
      return typeof record.text === "string" && record.text !== "" ? { text: record.text } : null;
    case "image_url": {
      const image = record.image_url;
      return imagePart(typeof image === "string" ? image : (image as { url?: unknown } | undefined)?.url, param);
    }
    case "input_audio": {
      const audio = record.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof audio?.data !== "string") throw new TranslationError("An input_audio part needs base64 data.", param);
      const format = typeof audio.format === "string" ? audio.format : "wav";
      return { inlineData: { mimeType: `audio/${format}`, data: audio.data } };
    }
    case "file": {
      const file = record.file as { file_data?: unknown } | undefined;
      const inline = typeof file?.file_data === "string" ? inlineDataFromDataUrl(file.file_data, param) : null;
      if (!inline) throw new TranslationError("Gemini needs a file part's content inline, as a data: URL in file_data.", param);
      return inline;
    }
    case "refusal":
      return null;
    default:
      throw new TranslationError(`Content parts of type '${clientValueText(record.type)}' cannot be sent to Gemini.`, param);
  }
}

/**
 * An OpenAI message's `content` (a string, null, or an array of parts) -> Gemini parts. Empty text is left
 * out: Gemini answers 400 to a part with an empty text.
 */
export function translateContentParts(content: unknown, param: string): GeminiPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  if (!Array.isArray(content)) throw new TranslationError("Message content must be a string or an array of parts.", param);
  const parts: GeminiPart[] = [];
  content.forEach((part, index) => {
    const translated = partFromOpenAIPart(part, `${param}[${index}]`);
    if (translated) parts.push(translated);
  });
  return parts;
}

/** System and developer messages: Gemini's systemInstruction only holds text. */
export function textOfContent(content: unknown, param: string): string {
  return translateContentParts(content, param)
    .map((part) => {
      if (part.text === undefined) throw new TranslationError("System messages can only hold text for Gemini.", param);
      return part.text;
    })
    .join("\n");
}
