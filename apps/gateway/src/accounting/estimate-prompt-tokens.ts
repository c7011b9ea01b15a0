import type { ProviderAdapter } from "@tollgate/upstream";

/**
 * The prompt side of a request's reservation: what the upstream will count, estimated from the body the
 * client sent (OpenAI chat and completions, Anthropic messages, embeddings), in two grades. The cheap
 * bound walks the body without tokenizing; the fitted estimate tokenizes the text with o200k and adds the
 * chat format's overhead, image tokens and a margin for the upstream's own tokenizer.
 */

type Counter = (text: string) => number;

/**
 * Tokens of one image whose size the gateway does not read: the largest documented count. Claude resizes
 * an image to at most ~1.15 megapixels, (width x height) / 750 = ~1,600 tokens (Anthropic, "Vision");
 * OpenAI's tile models count at most 85 + 170 x 8 tiles = 1,445 at high detail, and its patch models cap
 * an image at 1,536 patches; Gemini counts 258 per 768 px tile.
 */
export const IMAGE_TOKENS = 1_600;
/** OpenAI's `detail: "low"`: a fixed 85 tokens, whatever the size (OpenAI, "Images and vision"). */
export const LOW_DETAIL_IMAGE_TOKENS = 85;
/** Per message (role and separators) and for the reply's priming, as OpenAI's cookbook counts the chat format. */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_REPLY = 3;

/**
 * Extra share on top of the o200k count, for upstreams whose tokenizer cuts text finer. o200k is the
 * tokenizer of OpenAI's current models (GPT-4o, 4.1, o-series, GPT-5), so OpenAI's margin only covers
 * cl100k-era models and the format's rendering of names and tool calls; Claude's tokenizers count
 * noticeably more than o200k (Anthropic notes Opus 4.7's newer tokenizer alone uses up to 35% more than
 * its predecessors); Gemini's 256k SentencePiece vocabulary is close to o200k; other open models (Llama,
 * Mistral, Qwen, DeepSeek) range from o200k-like to 32k vocabularies. Judgements, stated in the README:
 * a call whose real count exceeds its reservation is still billed in full (the bounded overspend).
 */
export const TOKENIZER_MARGINS = { openai: 0.05, anthropic: 0.4, gemini: 0.2, other: 0.3 } as const;
export type TokenizerFamily = keyof typeof TOKENIZER_MARGINS;

/** Whose tokenizer counts a model's prompt: by the upstream model's name first, then by the channel type's adapter. */
export function tokenizerFamily(upstreamModel: string, adapter: Pick<ProviderAdapter, "tokenizer">): TokenizerFamily {
  const name = upstreamModel.toLowerCase();
  if (/(^|\/)(gpt-|o\d|chatgpt|text-embedding-3|omni-)/.test(name)) return "openai";
  if (name.includes("claude")) return "anthropic";
  if (name.includes("gemini") || name.includes("gemma")) return "gemini";
  return adapter.tokenizer ?? "other";
}

function isImagePart(part: Record<string, unknown>): boolean {
  return part.type === "image_url" || part.type === "image" || part.type === "input_image";
}

function imageTokens(part: Record<string, unknown>): number {
  const detail = (part.image_url as { detail?: unknown } | undefined)?.detail ?? part.detail;
  return detail === "low" ? LOW_DETAIL_IMAGE_TOKENS : IMAGE_TOKENS;
}

/** Images in message contents (OpenAI's and Anthropic's part shapes, tool results included). */
function countImages(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let images = 0;
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const record = part as Record<string, unknown>;
    if (isImagePart(record)) images += 1;
    else if (Array.isArray(record.content)) images += countImages(record.content);
  }
  return images;
}

/**
 * An upper bound on the prompt tokens without tokenizing: every tokenizer in use cuts text into pieces of
 * at least one byte, and the JSON around each message is longer than the chat format's overhead, so the
 * body's bytes bound the text; images by URL are not in those bytes and are added at their maximum.
 */
export function promptUpperBound(body: Record<string, unknown>, bodyBytes: number): number {
  let images = 0;
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (message && typeof message === "object") images += countImages((message as Record<string, unknown>).content);
    }
  }
  return bodyBytes + images * IMAGE_TOKENS;
}

function countContent(content: unknown, count: Counter): number {
  if (typeof content === "string") return count(content);
  if (!Array.isArray(content)) return content === undefined || content === null ? 0 : count(JSON.stringify(content));
  let total = 0;
  for (const part of content) {
    if (typeof part === "string") {
      total += count(part);
      continue;
    }
    if (!part || typeof part !== "object") continue;
    const record = part as Record<string, unknown>;
    if (isImagePart(record)) total += imageTokens(record);
    else if (typeof record.text === "string") total += count(record.text);
    else if (Array.isArray(record.content) || typeof record.content === "string") total += countContent(record.content, count) + TOKENS_PER_MESSAGE;
    // Tool calls and results, audio and files: their JSON, which is longer than what the model reads.
    else total += count(JSON.stringify(record));
  }
  return total;
}

/** Text, texts, token ids (counted one each) or arrays of token ids. */
export function countInput(input: unknown, count: Counter): number {
  if (typeof input === "string") return count(input);
  if (!Array.isArray(input)) return 0;
  if (input.every((item) => typeof item === "number")) return input.length;
  let total = 0;
  for (const item of input) total += typeof item === "string" ? count(item) : Array.isArray(item) ? item.length : 0;
  return total;
}

/**
 * The o200k count of what the model reads: messages (text, images, tool calls), the system prompt,
 * tools' schemas (as JSON, longer than the forms upstreams render them in), or a completion's prompt or
 * an embedding's input. No margin: see fittedPromptTokens.
 */
export function countPromptForReservation(body: Record<string, unknown>, count: Counter): number {
  if (body.prompt !== undefined) return countInput(body.prompt, count);
  if (body.input !== undefined && body.messages === undefined) return countInput(body.input, count);
  let total = TOKENS_PER_REPLY;
  if (body.system !== undefined) total += TOKENS_PER_MESSAGE + countContent(body.system, count);
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (!message || typeof message !== "object") continue;
      const record = message as Record<string, unknown>;
      total += TOKENS_PER_MESSAGE + countContent(record.content, count);
      if (typeof record.role === "string") total += count(record.role);
      if (typeof record.name === "string") total += 1 + count(record.name);
      if (record.tool_calls !== undefined) total += count(JSON.stringify(record.tool_calls));
      if (record.function_call !== undefined) total += count(JSON.stringify(record.function_call));
    }
  }
  if (body.tools !== undefined) total += count(JSON.stringify(body.tools));
  if (body.functions !== undefined) total += count(JSON.stringify(body.functions));
  return total;
}

/** The o200k count with the family's margin, never above the cheap bound (which holds for every tokenizer). */
export function fittedPromptTokens(body: Record<string, unknown>, count: Counter, family: TokenizerFamily, upperBound: number): number {
  const fitted = Math.ceil(countPromptForReservation(body, count) * (1 + TOKENIZER_MARGINS[family]));
  return Math.min(fitted, upperBound);
}
