import { TranslationError } from "../provider-adapter";

/**
 * What a translating adapter does with one OpenAI chat parameter: `translated` (carried in the upstream's
 * own terms), `ignored` (bookkeeping with no effect on the answer, such as `user` or `metadata`), or
 * `refused` unless the value is the no-op one (`n: 1`, `logprobs: false`), which changes nothing.
 */
export type ChatParameterRule =
  | { handling: "translated" }
  | { handling: "ignored" }
  | { handling: "refused"; noOp: (value: unknown) => boolean; noOpText: string };

export type ChatParameterTable = Readonly<Record<string, ChatParameterRule>>;

export const translated: ChatParameterRule = { handling: "translated" };
export const ignored: ChatParameterRule = { handling: "ignored" };

export function refusedUnless(noOpText: string, noOp: (value: unknown) => boolean): ChatParameterRule {
  return { handling: "refused", noOp, noOpText };
}
export const refusedAlways: ChatParameterRule = { handling: "refused", noOp: () => false, noOpText: "" };

const isEmptyObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** OpenAI chat parameters no translating upstream (Anthropic, Gemini) can carry; each allowed only at its no-op value. */
export const refusedByEveryTranslator: ChatParameterTable = {
  logprobs: refusedUnless("false", (value) => value === false),
  top_logprobs: refusedUnless("0", (value) => value === 0),
  logit_bias: refusedUnless("{}", isEmptyObject),
  service_tier: refusedUnless("'auto' or 'default'", (value) => value === "auto" || value === "default"),
  modalities: refusedUnless('["text"]', (value) => Array.isArray(value) && value.every((modality) => modality === "text")),
  audio: refusedAlways,
  prediction: refusedAlways,
  web_search_options: refusedAlways,
  verbosity: refusedUnless("'medium'", (value) => value === "medium"),
  functions: refusedAlways,
  function_call: refusedAlways,
};

/**
 * The core of OpenAI's chat request, which every translating upstream carries in its own terms: the model,
 * messages, length, sampling, stop sequences, streaming, tools and output format.
 */
export const translatedByEveryTranslator: ChatParameterTable = {
  model: translated,
  messages: translated,
  max_tokens: translated,
  max_completion_tokens: translated,
  temperature: translated,
  top_p: translated,
  top_k: translated,
  stop: translated,
  stream: translated,
  stream_options: translated,
  tools: translated,
  tool_choice: translated,
  response_format: translated,
};

/** Bookkeeping fields of OpenAI's chat API with no effect on the answer: accepted, not sent on. */
export const ignoredByEveryTranslator: ChatParameterTable = {
  store: ignored,
  metadata: ignored,
  prompt_cache_key: ignored,
  prompt_cache_retention: ignored,
  safety_identifier: ignored,
};

/**
 * Refuses (400 unsupported_parameter, naming it) every parameter of `body` that `table` does not carry:
 * a refused one set to anything but its no-op value, and any parameter the table does not know, so that
 * nothing a client asks for is dropped on the way. Null values are treated as absent, as OpenAI does.
 */
export function refuseUncarriedParameters(body: Record<string, unknown>, table: ChatParameterTable, upstream: string): void {
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    const rule = Object.hasOwn(table, name) ? table[name] : undefined;
    if (!rule) {
      throw new TranslationError(
        `Unrecognized request argument supplied: '${name.slice(0, 64)}'. This model is served through ${upstream}, which has no equivalent.`,
        name.slice(0, 64),
        "unsupported_parameter",
      );
    }
    if (rule.handling !== "refused" || rule.noOp(value)) continue;
    const allowed = rule.noOpText ? ` (only ${rule.noOpText}, which changes nothing, is accepted)` : "";
    throw new TranslationError(
      `'${name}' is not supported for this model: it is served through ${upstream}, which cannot carry it${allowed}. Remove the parameter.`,
      name,
      "unsupported_parameter",
    );
  }
}
