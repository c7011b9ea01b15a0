import { countTextTokens, textOfContent } from "../../accounting/count-tokens";
import { errorResponse, errors } from "../../errors";
import type { Codec, ParsedCall } from "../../pipeline/codec";
import { type MediaRequest, perRequestCall, prepareMediaAttempt, readResultsAnswer, requiredParameter, servesOperation } from "../relay-media/media-request";

/** The text of a moderation input: a string, strings, or omni-moderation's `{type: "text"|"image_url"}` parts. */
function inputText(input: unknown): string {
  if (typeof input === "string") return input;
  if (!Array.isArray(input)) return "";
  return input.map((item) => (typeof item === "string" ? item : textOfContent([item]))).join("\n");
}

/**
 * POST /v1/moderations, relayed to channels that serve OpenAI's moderation API. OpenAI reports no usage
 * for it (it is free there): a model priced per request is billed one request, one priced per token by
 * its input counted locally (marked estimated).
 */
export const moderationsCodec: Codec<MediaRequest, null> = {
  endpoint: "moderations",
  identifiers: "openai",
  defaultModel: "omni-moderation-latest",
  serves: servesOperation("moderations"),

  parse(admission): ParsedCall<MediaRequest> {
    const input = requiredParameter(admission.body.value, "input");
    if (typeof input !== "string" && !Array.isArray(input)) {
      throw errors.invalidParameter("input", "'input' must be a string, an array of strings, or an array of text and image_url parts.");
    }
    return perRequestCall("moderations", admission);
  },

  prepare: prepareMediaAttempt,

  // OpenAI reports no usage for a moderation.
  readWhole: (text) => readResultsAnswer(text, () => null),

  producedText: () => "",

  async estimateUsage(moderation) {
    return { promptTokens: await countTextTokens(inputText(moderation.body.input)), completionTokens: 0, cachedTokens: 0 };
  },

  errorResponse,
};
