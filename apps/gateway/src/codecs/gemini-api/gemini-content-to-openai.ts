import { isRecord } from "@tollgate/shared";
import { TranslationError } from "@tollgate/upstream";

const unsupported = (message: string, param: string) => new TranslationError(message, param, "unsupported_parameter");

/** Audio formats OpenAI's `input_audio` takes, by the MIME types Gemini clients send them with. */
const AUDIO_FORMATS: Record<string, string> = { "audio/wav": "wav", "audio/x-wav": "wav", "audio/mp3": "mp3", "audio/mpeg": "mp3" };

function stringField(record: Record<string, unknown>, name: string, path: string): string {
  const value = record[name];
  if (typeof value !== "string") throw new TranslationError(`'${path}.${name}' must be a string.`, `${path}.${name}`);
  return value;
}

/**
 * One user-side media or text part -> an OpenAI content part: text; inlineData as an image (data URL),
 * audio (input_audio, wav or mp3) or a PDF (a file part); fileData only as an image at an http(s) address,
 * since Google's File API URIs are readable by Google alone. Anything else is refused, naming the part.
 */
export function userPartToOpenAI(part: Record<string, unknown>, path: string): Record<string, unknown> {
  if (typeof part.text === "string") return { type: "text", text: part.text };
  if (part.inlineData !== undefined) {
    if (!isRecord(part.inlineData)) throw new TranslationError(`'${path}.inlineData' must be an object.`, `${path}.inlineData`);
    const mimeType = stringField(part.inlineData, "mimeType", `${path}.inlineData`).toLowerCase();
    const data = stringField(part.inlineData, "data", `${path}.inlineData`);
    if (mimeType.startsWith("image/")) return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } };
    const audioFormat = AUDIO_FORMATS[mimeType];
    if (audioFormat) return { type: "input_audio", input_audio: { data, format: audioFormat } };
    if (mimeType === "application/pdf") return { type: "file", file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${data}` } };
    throw unsupported(`'${path}.inlineData' of type ${mimeType} can be sent to Gemini channels only.`, `${path}.inlineData`);
  }
  if (part.fileData !== undefined) {
    if (!isRecord(part.fileData)) throw new TranslationError(`'${path}.fileData' must be an object.`, `${path}.fileData`);
    const uri = stringField(part.fileData, "fileUri", `${path}.fileData`);
    const mimeType = typeof part.fileData.mimeType === "string" ? part.fileData.mimeType.toLowerCase() : "";
    if (/^https?:\/\//i.test(uri) && mimeType.startsWith("image/")) return { type: "image_url", image_url: { url: uri } };
    throw unsupported(`'${path}.fileData' (a file uploaded to Google, or not an image at an http(s) address) can be sent to Gemini channels only.`, `${path}.fileData`);
  }
  const kind = Object.keys(part).find((key) => key !== "thoughtSignature" && key !== "thought") ?? "empty";
  throw unsupported(`'${path}' is a ${kind} part, which only Gemini channels take.`, path);
}

/** A Content's parts, checked to be an array of objects. */
export function partsOf(content: unknown, path: string): Record<string, unknown>[] {
  if (!isRecord(content)) throw new TranslationError(`'${path}' must be a Content object.`, path);
  const parts = content.parts;
  if (!Array.isArray(parts)) throw new TranslationError(`'${path}.parts' must be an array.`, `${path}.parts`);
  parts.forEach((part, index) => {
    if (!isRecord(part)) throw new TranslationError(`'${path}.parts[${index}]' must be a Part object.`, `${path}.parts[${index}]`);
  });
  return parts as Record<string, unknown>[];
}

/** systemInstruction (a Content of text parts, or as some clients send it, a string) -> the system message's text. */
export function systemTextOf(instruction: unknown): string | null {
  if (instruction === undefined || instruction === null) return null;
  if (typeof instruction === "string") return instruction;
  const texts = partsOf(instruction, "systemInstruction").map((part, index) => {
    if (typeof part.text !== "string") throw unsupported(`'systemInstruction.parts[${index}]' must be a text part.`, `systemInstruction.parts[${index}]`);
    return part.text;
  });
  return texts.join("\n");
}
