import { z } from "zod";
import { nameSchema, usdSchema } from "../values/value-schemas";

/**
 * A model's whole price, in USD per 1M tokens. A cached-input price left out or null means "same as the
 * input price": setting a price always states all of it, so an omitted one is reset, not kept.
 */
export const setPriceSchema = z.object({
  model: nameSchema,
  inputPrice: usdSchema,
  outputPrice: usdSchema,
  cachedInputPrice: usdSchema.nullable().default(null),
});

export const modelNameSchema = z.object({ model: nameSchema });

export type SetPriceInput = z.output<typeof setPriceSchema>;
