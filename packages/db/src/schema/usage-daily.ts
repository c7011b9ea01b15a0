import { index, pgTable, primaryKey, timestamp } from "drizzle-orm/pg-core";
import { usageRollupColumns } from "../usage-rollup-columns";

/**
 * usage_hourly summed per UTC day, kept by a trigger on usage_hourly (migration 0015, hand-written part), so
 * that whoever writes the hourly rollup (the write-behind, a backfill, psql) moves the daily one in the same
 * transaction. The dashboard reads whole days of a long range from here: a 90-day view sums about 24 times
 * fewer rows. Same columns and meaning as usage_hourly (usageRollupColumns).
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    /** Midnight UTC of the day. */
    day: timestamp("day", { withTimezone: true }).notNull(),
    ...usageRollupColumns(),
  },
  (table) => [
    primaryKey({ columns: [table.day, table.userId, table.tokenId, table.model, table.channelId] }),
    index("usage_daily_user_day_idx").on(table.userId, table.day),
  ],
);
