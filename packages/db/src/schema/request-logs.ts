import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, doublePrecision, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per /v1 call that reached accounting; written behind in batches by the gateways. Partitioned by
 * month of created_at (migration 0016, hand-written part; partitions made ahead and dropped past the
 * `request_log_retention_days` setting by request-log-partitions.ts), hence the primary key (id, created_at).
 * Every index ends in (created_at, id): the console's pages are keyset-paginated on that pair, so each
 * filter of the logs page reads its newest rows straight from one index (scanned backwards; ascending
 * columns, because drizzle's desc() says NULLS LAST, which an ORDER BY ... DESC cannot use).
 */
export const requestLogs = pgTable(
  "request_logs",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    requestId: text("request_id").notNull(),
    /** No foreign keys: logs outlive deleted tokens, users and channels. */
    userId: bigint("user_id", { mode: "number" }),
    tokenId: bigint("token_id", { mode: "number" }),
    tokenName: text("token_name"),
    endpoint: text("endpoint").notNull(),
    /** The model that served the call and whose price billed it (a fallback's, when one took over). */
    model: text("model").notNull(),
    /** The model the client asked for, when a fallback model served instead; null: the one that served. */
    requestedModel: text("requested_model"),
    upstreamModel: text("upstream_model"),
    channelId: bigint("channel_id", { mode: "number" }),
    /** Every channel tried, in order (failover). */
    channelsTried: bigint("channels_tried", { mode: "number" }).array(),
    promptTokens: integer("prompt_tokens").notNull().default(0),
    completionTokens: integer("completion_tokens").notNull().default(0),
    /** Prompt tokens read from the upstream's prompt cache (a subset of prompt_tokens). */
    cachedTokens: integer("cached_tokens").notNull().default(0),
    /** Prompt tokens written to the prompt cache with a 5-minute lifetime (a subset of prompt_tokens). */
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    /** Prompt tokens written to the prompt cache with a 1-hour lifetime (a subset of prompt_tokens). */
    cacheWrite1hTokens: integer("cache_write_1h_tokens").notNull().default(0),
    /** True when counts come from the local tokenizer because the upstream sent no usage. */
    usageEstimated: boolean("usage_estimated").notNull().default(false),
    /** The unit the cost was computed in: "token", "image", "audio_second", "character" or "request". */
    billedUnit: text("billed_unit").notNull().default("token"),
    /** Images, audio seconds, characters or requests billed; null when billed by tokens. */
    billedQuantity: doublePrecision("billed_quantity"),
    /** Micro-USD charged. */
    cost: bigint("cost", { mode: "number" }).notNull().default(0),
    /**
     * Micro-USD the prompt cache saved against every prompt token at the input price (negative when cache
     * writes cost more than reads saved); 0 without cache tokens or a price.
     */
    cacheSavings: bigint("cache_savings", { mode: "number" }).notNull().default(0),
    /** HTTP status returned to the client (499 when the client went away). */
    status: integer("status").notNull(),
    errorCode: text("error_code"),
    latencyMs: integer("latency_ms").notNull(),
    /** Time to the first byte of the answer (first chunk for streams). */
    firstTokenMs: integer("first_token_ms"),
    clientIp: text("client_ip"),
    stream: boolean("stream").notNull().default(false),
    /** Bytes of the answer's result, for calls that measure it (MCP tools/call); null otherwise. */
    responseBytes: integer("response_bytes"),
    /** What the exact response cache did for the call: hit, miss, bypass or refresh; null when it was not consulted. */
    responseCache: text("response_cache"),
  },
  (table) => [
    primaryKey({ columns: [table.id, table.createdAt] }),
    index("request_logs_created_idx").on(table.createdAt, table.id),
    index("request_logs_token_idx").on(table.tokenId, table.createdAt, table.id),
    index("request_logs_user_idx").on(table.userId, table.createdAt, table.id),
    index("request_logs_model_idx").on(table.model, table.createdAt, table.id),
    index("request_logs_channel_idx").on(table.channelId, table.createdAt, table.id),
    /** The logs page's "errors" filter (and any one error status): errors are few, so a partial index. */
    index("request_logs_errors_idx").on(table.createdAt, table.id).where(sql`${table.status} >= 400`),
  ],
);
