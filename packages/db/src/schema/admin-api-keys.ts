import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { teams } from "./teams";

/**
 * Keys of the management API (/api/v1). Like tokens, only a SHA-256 of the secret and a display prefix are
 * stored; the secret is shown once, at creation.
 */
export const adminApiKeys = pgTable(
  "admin_api_keys",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    /** `read`: GET only; `write`: everything. */
    scope: text("scope", { enum: ["read", "write"] }).notNull(),
    /**
     * Limits the key to one team: it acts as that team's admin (its tokens, members and usage, nothing
     * else). Deleting the team deletes its keys: a key must never outlive its team into a wider reach.
     */
    teamId: bigint("team_id", { mode: "number" }).references(() => teams.id, { onDelete: "cascade" }),
    /** The console user who created it; null for the CLI. */
    createdBy: bigint("created_by", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /** Set when revoked; a revoked key is refused. */
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
);

/**
 * A create call's `Idempotency-Key`, per API key: the same key with the same body replays the stored answer;
 * with another body it is a conflict. `status` null: the first call is still running.
 */
export const apiIdempotencyKeys = pgTable(
  "api_idempotency_keys",
  {
    apiKeyId: bigint("api_key_id", { mode: "number" })
      .notNull()
      .references(() => adminApiKeys.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** Hex SHA-256 of method, path and body. */
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    response: jsonb("response"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.apiKeyId, table.key] }), index("api_idempotency_keys_created_idx").on(table.createdAt)],
);
