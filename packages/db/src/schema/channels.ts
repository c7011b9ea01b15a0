import { sql } from "drizzle-orm";
import { bigserial, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Built-in (server-side) tools that run on the upstream's account and bear a fee per call there, by family:
 * OpenAI Responses `web_search`/`web_search_preview`, `file_search`, `code_interpreter`, `image_generation`,
 * `mcp`; Anthropic `web_search_*`, `web_fetch_*`, `code_execution_*`. Client-executed tools (computer use,
 * bash, text editor, shell, functions) bear no fee beyond tokens and are not listed.
 */
export const builtInToolFamilies = ["web_search", "web_fetch", "file_search", "code_interpreter", "code_execution", "image_generation", "mcp"] as const;
export type BuiltInToolFamily = (typeof builtInToolFamilies)[number];

/** Per-channel settings that are not worth a column each (timeouts, headers, preset quirks). */
export interface ChannelConfig {
  /** Time allowed for the upstream's response headers. */
  firstByteTimeoutMs?: number;
  /** Longest silence allowed between two chunks of a stream. */
  idleTimeoutMs?: number;
  /** Extra headers sent to the upstream (e.g. anthropic-beta, OpenRouter's HTTP-Referer). */
  headers?: Record<string, string>;
  /** openai-compatible: a vendor preset whose quirks apply (see openAICompatiblePresets). */
  preset?: string;
  /** azure-openai: the api-version query parameter. */
  apiVersion?: string;
  /** openai-compatible and azure-openai: the upstream serves the Responses API (unset: the preset's or version's default). */
  responsesApi?: boolean;
  /** anthropic: response_format json_schema as a forced tool ("tool", the default) or as Anthropic's output_config.format ("native"). */
  structuredOutput?: "tool" | "native";
  /** bedrock: the AWS region requests are signed for (and whose endpoint is the default base URL). */
  region?: string;
  /** Anthropic: cache breakpoints added on the tool definitions and the system prompt of translated requests. */
  autoCacheBreakpoints?: boolean;
  /**
   * Built-in tools this channel lets clients use, each with what one call costs the client (micro-USD,
   * added to the call's cost per call the upstream reports). A family not listed is refused with 400.
   */
  builtInTools?: Partial<Record<BuiltInToolFamily, { pricePerCall: number }>>;
  /** vertex: the Google Cloud project (unset: the service account's own). */
  project?: string;
  /** vertex: the Google Cloud location, e.g. us-central1 or global (unset: us-central1). */
  location?: string;
}

/** An upstream: one base URL and key serving a set of models. */
export const channels = pgTable("channels", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  name: text("name").notNull(),
  /** A provider adapter's type (packages/upstream's registry is the list; the admin schemas check it). */
  type: text("type").notNull().default("openai-compatible"),
  baseUrl: text("base_url").notNull(),
  /** Upstream API key, AES-256-GCM sealed with the key derived from TOLLGATE_SECRET and bound to this row (`v2:` + base64; see packages/shared secret-box). */
  apiKeyEncrypted: text("api_key_encrypted").notNull(),
  /** Public model ids this channel serves. */
  models: text("models").array().notNull().default(sql`'{}'::text[]`),
  /** Public model id -> upstream model id, for models the upstream names differently. */
  modelMapping: jsonb("model_mapping").$type<Record<string, string>>().notNull().default({}),
  /** Groups whose tokens may use this channel. */
  groups: text("groups").array().notNull().default(sql`'{default}'::text[]`),
  /** Higher tiers are tried first. */
  priority: integer("priority").notNull().default(0),
  /** Relative share of traffic within a priority tier. */
  weight: integer("weight").notNull().default(1),
  /** `auto_disabled` is set by the gateway when the upstream rejects the key. */
  status: text("status", { enum: ["enabled", "disabled", "auto_disabled"] }).notNull().default("enabled"),
  statusReason: text("status_reason"),
  config: jsonb("config").$type<ChannelConfig>().notNull().default({}),
  lastTestAt: timestamp("last_test_at", { withTimezone: true }),
  lastTestLatencyMs: integer("last_test_latency_ms"),
  lastTestError: text("last_test_error"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
