import { bigint, bigserial, index, integer, pgTable, text, timestamp, unique } from "drizzle-orm/pg-core";

/**
 * One spend alert: a token, a user or a team crossed a threshold of its budget in a period. The unique key is the
 * claim: whichever gateway instance inserts the row first delivers it, so an alert is sent once per
 * threshold per period however many instances see the spend. Also the console's list of notices.
 */
export const spendAlerts = pgTable(
  "spend_alerts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** `token`, `user` or `team`. */
    subjectKind: text("subject_kind", { enum: ["token", "user", "team"] }).notNull(),
    subjectId: bigint("subject_id", { mode: "number" }).notNull(),
    /** The token's owner, or the user itself; null for a team's alert. */
    userId: bigint("user_id", { mode: "number" }),
    /** Null for a user's alert. */
    tokenId: bigint("token_id", { mode: "number" }),
    /** Names when the alert was raised (a later rename or deletion does not change what was sent). */
    tokenName: text("token_name"),
    userName: text("user_name"),
    /** A team's alert: the team, and its name when the alert was raised; null otherwise. */
    teamId: bigint("team_id", { mode: "number" }),
    teamName: text("team_name"),
    /** `none`, `daily`, `weekly` or `monthly`. */
    period: text("period").notNull(),
    /** First instant of the period; the Unix epoch for a lifetime budget. */
    periodStart: timestamp("period_start", { withTimezone: true }).notNull(),
    /** End of the period (its reset); null for a lifetime budget. */
    periodEnd: timestamp("period_end", { withTimezone: true }),
    /** Percentage of the limit. */
    threshold: integer("threshold").notNull(),
    /** Spend in the period when the threshold was seen crossed, micro-USD. */
    spent: bigint("spent", { mode: "number" }).notNull(),
    /** The limit then, micro-USD. */
    limit: bigint("limit", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** When the webhook answered 2xx; null while it has not (or no webhook is set). */
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    attempts: integer("attempts").notNull().default(0),
    /** When the next delivery attempt is due; null once delivered or given up. */
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).defaultNow(),
    /** An instance is delivering it until then (claimed with FOR UPDATE SKIP LOCKED). */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Why the last attempt failed (status or network error; never the secret). */
    lastError: text("last_error"),
  },
  (table) => [
    unique("spend_alerts_once").on(table.subjectKind, table.subjectId, table.periodStart, table.threshold),
    index("spend_alerts_due_idx").on(table.nextAttemptAt),
    index("spend_alerts_created_idx").on(table.createdAt.desc()),
  ],
);
