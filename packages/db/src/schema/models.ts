import { bigint, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Prices per public model id. Prices are micro-USD per 1M tokens, which is the same number as
 * USD per 1M tokens times 1,000,000 (e.g. $2.50 / 1M tokens is stored as 2_500_000).
 */
export const modelPrices = pgTable("model_prices", {
  model: text("model").primaryKey(),
  inputPrice: bigint("input_price", { mode: "number" }).notNull().default(0),
  outputPrice: bigint("output_price", { mode: "number" }).notNull().default(0),
  /** Price of cached prompt tokens; null means the input price. */
  cachedInputPrice: bigint("cached_input_price", { mode: "number" }),
  /** Price of prompt tokens written to the prompt cache for 5 minutes; null means the input price. */
  cacheWritePrice: bigint("cache_write_price", { mode: "number" }),
  /** Price of prompt tokens written to the prompt cache for 1 hour; null means the input price. */
  cacheWrite1hPrice: bigint("cache_write_1h_price", { mode: "number" }),
  /**
   * What the model is billed by: "token" (the token prices above), "image", "audio_second", "character"
   * (per 1M characters of input) or "request" (see packages/shared unit-price.ts).
   */
  priceUnit: text("price_unit").notNull().default("token"),
  /** Micro-USD per image (the default size), per audio second, per 1M characters or per request; null for tokens. */
  unitPrice: bigint("unit_price", { mode: "number" }),
  /** Per-image prices in micro-USD by "size/quality" or by "size" (e.g. {"1024x1024/hd": 80000}); unitPrice otherwise. */
  imagePrices: jsonb("image_prices").$type<Record<string, number>>(),
  /** Completion tokens held against quota when a request names no max_tokens; null: the global setting. */
  defaultMaxTokens: integer("default_max_tokens"),
  ownedBy: text("owned_by"),
  /**
   * Public model ids tried in order when every channel of this model fails (a retryable or channel fault)
   * or the prompt exceeds its context window; null: none. Checked when saved (known models, not itself).
   */
  fallbackModels: text("fallback_models").array(),
  /** The model's context window in tokens: a prompt estimated past it goes to the next fallback model; null: unknown. */
  contextWindow: integer("context_window"),
  /** Micro-USD billed for one answer served from the exact response cache (no upstream call); default 0. */
  cacheHitPrice: bigint("cache_hit_price", { mode: "number" }).notNull().default(0),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
