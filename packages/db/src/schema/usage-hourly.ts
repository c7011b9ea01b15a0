import { index, pgTable, primaryKey, timestamp } from "drizzle-orm/pg-core";
import { usageRollupColumns } from "../usage-rollup-columns";

/**
 * Hourly rollup of request logs, upserted by the gateways' write-behind in the same transaction as the log
 * rows, so dashboards never scan request_logs. channel_id is 0 when no channel was reached.
 */
export const usageHourly = pgTable(
  "usage_hourly",
  {
    hour: timestamp("hour", { withTimezone: true }).notNull(),
    ...usageRollupColumns(),
  },
  (table) => [
    primaryKey({ columns: [table.hour, table.userId, table.tokenId, table.model, table.channelId] }),
    /** A user's own dashboard and usage export: their rows of a range, not every user's. */
    index("usage_hourly_user_hour_idx").on(table.userId, table.hour),
  ],
);
