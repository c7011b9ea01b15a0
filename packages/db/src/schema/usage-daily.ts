import { bigint, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * usage_hourly summed per UTC day, kept by a trigger on usage_hourly (migration 0015, hand-written part), so
 * that whoever writes the hourly rollup (the write-behind, a backfill, psql) moves the daily one in the same
 * transaction. The dashboard reads whole days of a long range from here: a 90-day view sums about 24 times
 * fewer rows. Same columns and meaning as usage_hourly.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    /** Midnight UTC of the day. */
    day: timestamp("day", { withTimezone: true }).notNull(),
    userId: bigint("user_id", { mode: "number" }).notNull(),
    tokenId: bigint("token_id", { mode: "number" }).notNull(),
    model: text("model").notNull(),
    channelId: bigint("channel_id", { mode: "number" }).notNull().default(0),
    requests: integer("requests").notNull().default(0),
    errors: integer("errors").notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    cachedTokens: bigint("cached_tokens", { mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
    cacheWrite1hTokens: bigint("cache_write_1h_tokens", { mode: "number" }).notNull().default(0),
    cost: bigint("cost", { mode: "number" }).notNull().default(0),
    cacheSavings: bigint("cache_savings", { mode: "number" }).notNull().default(0),
    latencyMsSum: bigint("latency_ms_sum", { mode: "number" }).notNull().default(0),
    latencyCount: integer("latency_count").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.day, table.userId, table.tokenId, table.model, table.channelId] }),
    index("usage_daily_user_day_idx").on(table.userId, table.day),
  ],
);
