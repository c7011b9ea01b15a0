import type { requestLogs } from "@tollgate/db";
import { sql, type SQL } from "drizzle-orm";
import { LOG_COLUMNS, logColumnValues } from "./spool-line";

type RequestLogRow = typeof requestLogs.$inferInsert;

/**
 * How each request_logs column is read from a row's JSON array (`r`, its values in LOG_COLUMNS's order):
 * `value` is the element as text (`r->>i`). A column that is NOT NULL with a default gets the default for a
 * null, as a row that left it out would.
 */
const COLUMN_SQL: Record<(typeof LOG_COLUMNS)[number], { name: string; read: (value: string, element: string) => string }> = {
  // Milliseconds since the epoch, exactly (no float division); a row without a time is written now.
  createdAt: { name: "created_at", read: (value) => `coalesce(timestamptz 'epoch' + (${value})::bigint * interval '1 millisecond', now())` },
  requestId: { name: "request_id", read: (value) => value },
  userId: { name: "user_id", read: (value) => `(${value})::bigint` },
  tokenId: { name: "token_id", read: (value) => `(${value})::bigint` },
  tokenName: { name: "token_name", read: (value) => value },
  endpoint: { name: "endpoint", read: (value) => value },
  model: { name: "model", read: (value) => value },
  requestedModel: { name: "requested_model", read: (value) => value },
  upstreamModel: { name: "upstream_model", read: (value) => value },
  channelId: { name: "channel_id", read: (value) => `(${value})::bigint` },
  // A JSON array of ids ([1, 2] as jsonb prints it) becomes the array literal {1, 2}; null stays null.
  channelsTried: {
    name: "channels_tried",
    read: (_value, element) => `case when jsonb_typeof(${element}) = 'array' then translate((${element})::text, '[]', '{}')::bigint[] end`,
  },
  promptTokens: { name: "prompt_tokens", read: (value) => `coalesce((${value})::integer, 0)` },
  completionTokens: { name: "completion_tokens", read: (value) => `coalesce((${value})::integer, 0)` },
  cachedTokens: { name: "cached_tokens", read: (value) => `coalesce((${value})::integer, 0)` },
  cacheWriteTokens: { name: "cache_write_tokens", read: (value) => `coalesce((${value})::integer, 0)` },
  cacheWrite1hTokens: { name: "cache_write_1h_tokens", read: (value) => `coalesce((${value})::integer, 0)` },
  usageEstimated: { name: "usage_estimated", read: (value) => `coalesce((${value})::boolean, false)` },
  billedUnit: { name: "billed_unit", read: (value) => `coalesce(${value}, 'token')` },
  billedQuantity: { name: "billed_quantity", read: (value) => `(${value})::double precision` },
  cost: { name: "cost", read: (value) => `coalesce((${value})::bigint, 0)` },
  cacheSavings: { name: "cache_savings", read: (value) => `coalesce((${value})::bigint, 0)` },
  status: { name: "status", read: (value) => `(${value})::integer` },
  errorCode: { name: "error_code", read: (value) => value },
  latencyMs: { name: "latency_ms", read: (value) => `(${value})::integer` },
  firstTokenMs: { name: "first_token_ms", read: (value) => `(${value})::integer` },
  clientIp: { name: "client_ip", read: (value) => value },
  stream: { name: "stream", read: (value) => `coalesce((${value})::boolean, false)` },
  responseBytes: { name: "response_bytes", read: (value) => `(${value})::integer` },
  responseCache: { name: "response_cache", read: (value) => value },
};

const COLUMN_NAMES = sql.raw(LOG_COLUMNS.map((column) => COLUMN_SQL[column].name).join(", "));
const SELECT_LIST = sql.raw(LOG_COLUMNS.map((column, index) => COLUMN_SQL[column].read(`r->>${index}`, `r->${index}`)).join(",\n  "));

/**
 * One INSERT for a whole batch of request-log rows: the rows travel as one JSON parameter (an array of
 * arrays, each row's values in LOG_COLUMNS's order, made by one JSON.stringify) and Postgres reads each
 * column out of it. Building the parameter costs about 0.3 us a row on the write-behind thread, where
 * building 29 array literals (one per column) cost about 1.4. A string Postgres cannot hold (NUL, a lone
 * surrogate) is made storable first by sanitizeLogRow.
 */
export function insertRequestLogs(rows: readonly RequestLogRow[]): SQL {
  return sql`
    insert into request_logs (${COLUMN_NAMES})
    select ${SELECT_LIST}
    from jsonb_array_elements(${JSON.stringify(rows.map(logColumnValues))}::jsonb) as r`;
}
