import { priceUnits } from "@tollgate/shared";
import { z } from "zod";
import { nameSchema, usdSchema } from "../values/value-schemas";

/** An image price's key: a size ("1024x1024", "auto") and optionally its quality ("1024x1024/hd"). */
const IMAGE_PRICE_KEY = /^[a-z0-9]+(x[0-9]+)?(\/[a-z0-9_-]+)?$/i;

/** Per-image prices in USD by "size/quality" or "size", read into micro-USD. */
const imagePricesSchema = z
  .record(z.string(), usdSchema, { error: 'Must map sizes ("1024x1024" or "1024x1024/hd") to USD amounts' })
  .superRefine((table, context) => {
    const keys = Object.keys(table);
    if (keys.length === 0) context.addIssue({ code: "custom", message: "Must list at least one size" });
    if (keys.length > 50) context.addIssue({ code: "custom", message: "Must list at most 50 sizes" });
    for (const key of keys) {
      if (!IMAGE_PRICE_KEY.test(key)) context.addIssue({ code: "custom", message: `"${key}" is not a size or size/quality (e.g. 1024x1024/hd)` });
    }
  });

const MAX_TOKENS_BOUND = 10_000_000;

/** A whole number of tokens, from 1 to `bound`. */
function tokenCountSchema(bound: number) {
  return z
    .number({ error: "Must be a positive integer" })
    .int("Must be a positive integer")
    .min(1, "Must be a positive integer")
    .max(bound, `Must be at most ${bound}`);
}

/**
 * A model's whole price. `unit` says what it is billed by (packages/shared unit-price.ts): per 1M tokens
 * (`inputPrice`, `outputPrice`, `cachedInputPrice` for cache reads, `cacheWritePrice` for 5-minute cache
 * writes, `cacheWrite1hPrice` for 1-hour cache writes: USD per 1M tokens, the first two required), or per
 * image (`imagePrices` by size/quality, `unitPrice` for any other size), per audio second, per 1M
 * characters or per request (`unitPrice`). A cache price left out or null means "same as the input
 * price": setting a price always states all of it, so an omitted one is reset, not kept.
 * `defaultMaxTokens`: completion tokens held against quota for a request that names no max_tokens (null:
 * the global setting). `cacheHitPrice`: USD per answer served from the response cache (default 0).
 */
export const setPriceSchema = z
  .object({
    model: nameSchema,
    unit: z.enum(priceUnits, { error: `Must be one of ${priceUnits.join(", ")}` }).default("token"),
    inputPrice: usdSchema.optional(),
    outputPrice: usdSchema.optional(),
    cachedInputPrice: usdSchema.nullable().default(null),
    cacheWritePrice: usdSchema.nullable().default(null),
    cacheWrite1hPrice: usdSchema.nullable().default(null),
    unitPrice: usdSchema.nullable().default(null),
    imagePrices: imagePricesSchema.nullable().default(null),
    defaultMaxTokens: tokenCountSchema(MAX_TOKENS_BOUND).nullable().default(null),
    /** USD billed for one answer served from the exact response cache (no upstream call); default 0. */
    cacheHitPrice: usdSchema.default(0),
  })
  .superRefine((price, context) => {
    const issue = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
    if (price.unit === "token") {
      if (price.inputPrice === undefined) issue("inputPrice", "Is required");
      if (price.outputPrice === undefined) issue("outputPrice", "Is required");
      if (price.unitPrice !== null) issue("unitPrice", "Is only for a unit other than token");
    } else if (price.unitPrice === null && (price.unit !== "image" || price.imagePrices === null)) {
      issue("unitPrice", price.unit === "image" ? "Is required (or per-size image prices)" : "Is required");
    }
    if (price.imagePrices !== null && price.unit !== "image") issue("imagePrices", "Is only for the image unit");
  })
  .transform(({ inputPrice, outputPrice, ...price }) => ({ ...price, inputPrice: inputPrice ?? 0, outputPrice: outputPrice ?? 0 }));

export const modelNameSchema = z.object({ model: nameSchema });

export type SetPriceInput = z.output<typeof setPriceSchema>;

/** The most models one fallback list names (the gateway routes a call to at most three of them). */
export const MAX_FALLBACK_MODELS = 5;
/** The largest context window accepted: ten million tokens, well past any model's. */
const MAX_CONTEXT_WINDOW = 10_000_000;

/**
 * A model's routing settings, each changed only when given: `fallbacks`, the models tried in order when
 * every channel of the model fails or the prompt exceeds its context window (null or [] clears the list;
 * never the model itself, each model once); `contextWindow` in tokens (null clears it). Which models exist
 * is checked by updateModelRouting (a channel serves them or they are priced).
 */
export const updateModelRoutingSchema = z
  .object({
    model: nameSchema,
    fallbacks: z
      .array(nameSchema, { error: "Must be a list of model names" })
      .max(MAX_FALLBACK_MODELS, `Must list at most ${MAX_FALLBACK_MODELS} models`)
      .nullable()
      .optional(),
    contextWindow: tokenCountSchema(MAX_CONTEXT_WINDOW).nullable().optional(),
  })
  .superRefine((input, context) => {
    const fallbacks = input.fallbacks ?? [];
    if (fallbacks.includes(input.model)) context.addIssue({ code: "custom", path: ["fallbacks"], message: "Must not name the model itself" });
    const twice = fallbacks.find((model, index) => fallbacks.indexOf(model) !== index);
    if (twice !== undefined) context.addIssue({ code: "custom", path: ["fallbacks"], message: `Names ${JSON.stringify(twice)} twice` });
  });

export type UpdateModelRoutingInput = z.output<typeof updateModelRoutingSchema>;
