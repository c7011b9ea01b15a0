import { bigint, integer, text } from "drizzle-orm/pg-core";

/**
 * The key (user, token, model, channel) and the sums that the hourly and the daily usage rollups share
 * (usage_hourly, usage_daily): the daily rows are the hourly ones summed per UTC day, column for column.
 */
export function usageRollupColumns() {
  return {
      userId: bigint("user_id", { mode: "number" }).notNull(),
      tokenId: bigint("token_id", { mode: "number" }).notNull(),
      model: text("model").notNull(),
      channelId: bigint("channel_id", { mode: "number" }).notNull().default(0),
      requests: integer("requests").notNull().default(0),
      /** Requests answered with a status of 400 or more. */
      errors: integer("errors").notNull().default(0),
      promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
      completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
      cachedTokens: bigint("cached_tokens", { mode: "number" }).notNull().default(0),
      cacheWriteTokens: bigint("cache_write_tokens", { mode: "number" }).notNull().default(0),
      cacheWrite1hTokens: bigint("cache_write_1h_tokens", { mode: "number" }).notNull().default(0),
      /** Micro-USD. */
      cost: bigint("cost", { mode: "number" }).notNull().default(0),
      /** Micro-USD the prompt cache saved (request_logs.cache_savings summed; may be negative). */
      cacheSavings: bigint("cache_savings", { mode: "number" }).notNull().default(0),
      /**
       * Sum of the requests' latency (request_logs.latency_ms) and how many requests it covers, so that an
       * average is latency_ms_sum / latency_count. latency_count is its own column (not `requests`) because
       * rows written before migration 0011 carry requests without latency. Sums give averages, not
       * percentiles: a p95 would need a histogram or the log rows.
       */
      latencyMsSum: bigint("latency_ms_sum", { mode: "number" }).notNull().default(0),
      latencyCount: integer("latency_count").notNull().default(0),
  };
}
