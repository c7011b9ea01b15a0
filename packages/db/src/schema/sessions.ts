import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/** Console login sessions. The cookie holds a random secret; only its SHA-256 is stored. */
export const sessions = pgTable(
  "sessions",
  {
    /** Hex SHA-256 of the session cookie's secret. */
    id: text("id").primaryKey(),
    userId: bigint("user_id", { mode: "number" }).notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("sessions_user_idx").on(table.userId)],
);
