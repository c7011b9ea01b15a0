import { bigint, pgTable, text, timestamp } from "drizzle-orm/pg-core";

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
  ownedBy: text("owned_by"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
