import { bigint, integer, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The budget period columns tokens and users share. The limit is the token's quota_limit or the user's
 * budget_limit; with a period it applies to each period and resets at its first instant.
 */
export function budgetColumns() {
  return {
    /** `none` (a lifetime total), `daily`, `weekly` (ISO, from Monday) or `monthly`. */
    budgetPeriod: text("budget_period", { enum: ["none", "daily", "weekly", "monthly"] }).notNull().default("none"),
    /** IANA time zone whose midnight starts a period. */
    budgetTimeZone: text("budget_time_zone").notNull().default("UTC"),
    /**
     * Start of the period period_used counts, as the gateways' clock placed the calls; null before the
     * first spend in a period. Written behind with the spend; a row whose start is older than the current
     * period has spent nothing in it.
     */
    periodStart: timestamp("period_start", { withTimezone: true }),
    /** Spend in the period that starts at period_start, micro-USD. */
    periodUsed: bigint("period_used", { mode: "number" }).notNull().default(0),
    /**
     * Percentages of the limit at which a spend alert is sent (each once per period); null: the
     * `spend_alert_thresholds` setting; empty: no alerts.
     */
    alertThresholds: integer("alert_thresholds").array(),
  };
}
