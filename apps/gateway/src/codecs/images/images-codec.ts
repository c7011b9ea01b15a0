import type { MeteredUnits, TokenUsage } from "@tollgate/shared";
import { countTextTokens } from "../../accounting/count-tokens";
import { errorResponse, errors } from "../../errors";
import type { Codec, ParsedCall, WholeAnswer } from "../../pipeline/codec";
import { type MediaRequest, mediaRequest, parseJsonAnswer, prepareMediaAttempt, requiredParameter, servesOperation } from "../relay-media/media-request";

interface ImagesRequest extends MediaRequest {
  /** The size and quality asked for (OpenAI's defaults when absent), the keys of a per-image price. */
  size: string;
  quality: string;
}

/** OpenAI's defaults (platform.openai.com/docs/api-reference/images): one image, 1024x1024, standard quality. */
const DEFAULT_SIZE = "1024x1024";
const DEFAULT_QUALITY = "standard";
const MAX_IMAGES = 10;

function optionalText(body: Record<string, unknown>, param: string): string | null {
  const value = body[param];
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string") throw errors.invalidParameter(param, `'${param}' must be a string.`);
  return value;
}

/** `n` from a JSON number or a form field's text. */
function imageCount(value: unknown): number {
  if (value === undefined || value === null || value === "") return 1;
  const count = typeof value === "string" ? Number(value) : value;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > MAX_IMAGES) {
    throw errors.invalidParameter("n", `'n' must be an integer from 1 to ${MAX_IMAGES}.`);
  }
  return count;
}

/**
 * gpt-image-1 reports tokens (`usage.input_tokens`, `output_tokens`); DALL-E reports none. Billed by them
 * only when the model is priced per token.
 */
function imageTokenUsage(usage: unknown): TokenUsage | null {
  if (!usage || typeof usage !== "object") return null;
  const { input_tokens: input, output_tokens: output } = usage as Record<string, unknown>;
  if (typeof input !== "number" || typeof output !== "number") return null;
  return { promptTokens: input, completionTokens: output, cachedTokens: 0 };
}

function imagesCodec(endpoint: string, operation: "images/generations" | "images/edits"): Codec<ImagesRequest, null> {
  const multipart = operation === "images/edits";
  return {
    endpoint,
    identifiers: "openai",
    bodyFormat: multipart ? "multipart" : "json",
    serves: servesOperation(operation),

    async parse(admission, services): Promise<ParsedCall<ImagesRequest>> {
      const body = admission.body.value;
      const prompt = requiredParameter(body, "prompt");
      if (typeof prompt !== "string") throw errors.invalidParameter("prompt", "'prompt' must be a string.");
      if (multipart && !admission.form?.has("image") && !admission.form?.has("image[]")) throw errors.missingParameter("image");
      if (body.stream === true || body.stream === "true") {
        throw errors.invalidParameter("stream", "Streamed image generation is not supported by this gateway; leave 'stream' unset.");
      }
      const count = imageCount(body.n);
      const size = optionalText(body, "size") ?? DEFAULT_SIZE;
      const quality = optionalText(body, "quality") ?? DEFAULT_QUALITY;
      return {
        request: { ...mediaRequest(operation, admission), size, quality },
        // For a model priced per token (gpt-image-1 bills each image's output tokens): its default bound per image.
        maxOutputTokens: null,
        answers: count,
        stream: false,
        worstCaseUnits: { unit: "image", count, size, quality },
      };
    },

    prepare: prepareMediaAttempt,

    readWhole(text, _forwarded, images): WholeAnswer | null {
      const json = parseJsonAnswer(text);
      if (!json || !Array.isArray(json.data)) return null;
      const units: MeteredUnits = { unit: "image", count: json.data.length, size: images.size, quality: images.quality };
      return { usage: imageTokenUsage(json.usage), units, body: text };
    },

    producedText: () => "",

    async estimateUsage(images) {
      return { promptTokens: await countTextTokens(String(images.body.prompt ?? "")), completionTokens: 0, cachedTokens: 0 };
    },

    errorResponse,
  };
}

/** POST /v1/images/generations (JSON), relayed to channels that serve OpenAI's images API; billed per image made. */
export const imageGenerationsCodec = imagesCodec("images.generations", "images/generations");
/** POST /v1/images/edits (multipart: image, mask, prompt, ...), relayed as a form; billed per image made. */
export const imageEditsCodec = imagesCodec("images.edits", "images/edits");
