import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accessLimitColumns } from "../access-limit-columns";
import { budgetColumns } from "../budget-columns";
import { teams } from "./teams";
import { users } from "./users";

/**
 * The limits an administrator set on a token (console or CLI), each the most its owner may allow when
 * editing the token: a lower quota, RPM or TPM, an earlier expiry, fewer models, a narrower IP list. A field
 * that is absent, null or empty carries no ceiling (the administrator left it unlimited, or never set it).
 * Only administrators' writes change it; a token its owner created has none.
 */
export interface TokenGrantedLimits {
  /** Micro-USD. */
  quotaLimit?: number | null;
  /** ISO 8601 instant. */
  expiresAt?: string | null;
  allowedModels?: string[];
  allowedIps?: string[];
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  /** An administrator disabled the token: only an administrator may enable it again. */
  disabled?: boolean;
}

export const tokens = pgTable(
  "tokens",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" }).notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /**
     * The team the token belongs to (its spend counts against the team's budget and limits as well as its
     * owner's); null for a personal token. A team with tokens cannot be deleted.
     */
    teamId: bigint("team_id", { mode: "number" }).references(() => teams.id, { onDelete: "restrict" }),
    /** Hex SHA-256 of the full secret (`sk-...`); the secret itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** What the console shows, e.g. `sk-abcd…wxyz`. */
    keyPrefix: text("key_prefix").notNull(),
    status: text("status", { enum: ["enabled", "disabled"] }).notNull().default("enabled"),
    /** Routing group; null means the owner's group. */
    group: text("group"),
    /** Null means the token never expires. */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /**
     * Spend allowed in micro-USD: in all (budget_period `none`) or in each period; null means unlimited.
     */
    quotaLimit: bigint("quota_limit", { mode: "number" }),
    /** Spend so far in micro-USD over the token's whole life, written behind by the gateways. */
    usedQuota: bigint("used_quota", { mode: "number" }).notNull().default(0),
    ...budgetColumns(),
    ...accessLimitColumns(),
    /** The ceilings an administrator set on this token's limits; see TokenGrantedLimits. */
    grantedLimits: jsonb("granted_limits").$type<TokenGrantedLimits>().notNull().default({}),
    /** Last use of the token by any of its secrets, written behind. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /**
     * The secret a roll replaced, still accepted until previousKeyExpiresAt (the grace period); null when
     * the token was never rolled or the roll took effect at once. Hash and display prefix, as for the key.
     */
    previousKeyHash: text("previous_key_hash").unique(),
    previousKeyPrefix: text("previous_key_prefix"),
    previousKeyExpiresAt: timestamp("previous_key_expires_at", { withTimezone: true }),
    /** Last use of the previous secret during its grace period, written behind. */
    previousKeyLastUsedAt: timestamp("previous_key_last_used_at", { withTimezone: true }),
    /**
     * MCP servers (by name) the token may use through /mcp; `*`: every server its group may use; empty: no
     * MCP access (403).
     */
    mcpServers: text("mcp_servers").array().notNull().default(sql`'{}'::text[]`),
    /** Tools the token may call (`server__tool`, or `server__*`); empty: every tool of its servers. */
    mcpTools: text("mcp_tools").array().notNull().default(sql`'{}'::text[]`),
    /** When the current secret was created by a roll; null for the token's first secret. */
    rolledAt: timestamp("rolled_at", { withTimezone: true }),
    /** Seconds an answer stays in the exact response cache for this token's calls; null: the cache is off unless a call asks for it. */
    responseCacheTtlSeconds: integer("response_cache_ttl_seconds"),
    /**
     * Whose calls share cached answers: "user" (the token owner's calls, the default), "token" (this token's
     * only) or "group" (everyone routed in the same group; only an administrator may set it).
     */
    responseCacheScope: text("response_cache_scope", { enum: ["user", "token", "team", "group"] }).notNull().default("user"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("tokens_user_idx").on(table.userId), index("tokens_team_idx").on(table.teamId)],
);
