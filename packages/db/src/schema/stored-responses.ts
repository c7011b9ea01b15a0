import { bigint, boolean, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Answers of POST /v1/responses kept for `previous_response_id`, GET and DELETE /v1/responses/{id}, until
 * `expires_at` (the `responses_retention_days` setting). Only the token that created a row can read it.
 */
export const storedResponses = pgTable(
  "stored_responses",
  {
    /** `resp_...`: the gateway's own id for translated answers, the upstream's for natively relayed ones. */
    id: text("id").primaryKey(),
    /** No foreign keys, as request logs: a deleted token's rows are unreachable and expire. */
    tokenId: bigint("token_id", { mode: "number" }).notNull(),
    userId: bigint("user_id", { mode: "number" }).notNull(),
    /** The channel that answered: a follow-up of a natively relayed response must go back to it. */
    channelId: bigint("channel_id", { mode: "number" }).notNull(),
    /** Relayed to a channel that speaks the Responses API itself (which keeps its own copy of the state). */
    native: boolean("native").notNull(),
    model: text("model").notNull(),
    /** The conversation the model read, as Responses input items: earlier turns replayed, then this request's input. */
    inputItems: jsonb("input_items").notNull(),
    /** The whole Response object as the client received it (output items and usage included). */
    response: jsonb("response").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("stored_responses_expires_idx").on(table.expiresAt)],
);
