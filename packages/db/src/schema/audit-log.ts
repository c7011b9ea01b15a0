import { bigint, bigserial, index, jsonb, pgTable, smallint, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Who changed what: one row per admin mutation (console, CLI or management API), written by packages/admin
 * in the transaction of the change. Append-only: a trigger refuses UPDATE, and DELETE except the retention
 * purge (migration, hand-written part). Rows form a hash chain: `hash` covers `prev_hash` and every other
 * column (see packages/admin audit-hash.ts), so an edited or deleted row breaks the chain that
 * `admin audit verify` walks. Writers serialise on an advisory lock, so the chain has one order: by id.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** Set by the writer (millisecond precision), so that the hash covers exactly what is stored. */
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
    /** `user` (console sign-in), `cli` or `api_key`. */
    actorKind: text("actor_kind", { enum: ["user", "cli", "api_key"] }).notNull(),
    /** The user's or the API key's id; null for the CLI. */
    actorId: bigint("actor_id", { mode: "number" }),
    /** The user's or key's name at the time, or the operating-system user running the CLI. */
    actorName: text("actor_name"),
    /** The client's address (console, API), or the host name for the CLI. */
    sourceAddress: text("source_address"),
    /** `<object type>.<verb>`, e.g. `token.create`. */
    action: text("action").notNull(),
    objectType: text("object_type").notNull(),
    /** The object's id or name (a model's name), as text. */
    objectId: text("object_id"),
    /** The object's fields before and after, secrets replaced by "[redacted]"; null when it did not exist. */
    before: jsonb("before"),
    after: jsonb("after"),
    /** Hex SHA-256 of the previous row (64 zeros for the first row ever written). */
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (table) => [
    index("audit_log_at_idx").on(table.at),
    index("audit_log_object_idx").on(table.objectType, table.objectId),
    index("audit_log_actor_idx").on(table.actorKind, table.actorId),
  ],
);

/**
 * Where `admin audit verify` starts once the retention purge has deleted older rows: the oldest kept row's id
 * and its prev_hash (one row, written by the purge in its transaction). Its own table, not a setting: the
 * gateways reload their settings on every change, and the purge is none of theirs.
 */
export const auditAnchor = pgTable("audit_anchor", {
  /** Always 1: there is one anchor. */
  slot: smallint("slot").primaryKey().default(1),
  rowId: bigint("row_id", { mode: "number" }).notNull(),
  prevHash: text("prev_hash").notNull(),
  purgedAt: timestamp("purged_at", { withTimezone: true }).notNull().defaultNow(),
});
