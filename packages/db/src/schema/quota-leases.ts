import { bigint, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Slices of a token's quota or a user's balance that one gateway instance may spend without asking the
 * database again. An instance spends only what it holds, so instances together cannot overspend; a lease
 * whose instance stopped heart-beating (crash) is ignored after a minute and its slice returns.
 */
export const quotaLeases = pgTable(
  "quota_leases",
  {
    /**
     * `token:<id>` (a lifetime quota), `user:<id>` (a balance), `budget:<id>` (a user's lifetime budget), or
     * one period of a token's quota or a user's budget: `token:<id>@<period start, epoch ms>@<period>@<zone>`
     * (`budget:` likewise). A period's slices are slices of that period only: a lease never spans a reset.
     */
    subject: text("subject").notNull(),
    /** Random id of the gateway process holding the lease. */
    instanceId: text("instance_id").notNull(),
    /** Micro-USD granted and not yet written back as spent. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    heartbeatAt: timestamp("heartbeat_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.subject, table.instanceId] })],
);
