import { bigint, bigserial, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * How far each gateway's local usage spool has been written to the database. A spool is an append-only
 * file of the usage records one gateway process accepted; the write-behind moves this mark forward in the
 * same transaction that writes the records, so a spool replayed after a crash (by the same or another
 * process) applies exactly the records past the mark: never twice, never none.
 */
export const usageSpoolCheckpoints = pgTable("usage_spool_checkpoints", {
  /** The writing process's instance id (also its quota_leases instance id). */
  spoolId: text("spool_id").primaryKey(),
  /** Highest record sequence number of this spool committed to the database. */
  lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Request-log rows the database refused (a value it cannot store): set aside so that the rest of their
 * batch is written. Their spend was applied to the token and user totals all the same.
 */
export const requestLogDeadLetters = pgTable(
  "request_log_dead_letters",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    requestId: text("request_id").notNull(),
    /** The database's error (SQLSTATE and message), never the refused value itself. */
    error: text("error").notNull(),
    /** The refused row as JSON text (control characters escaped, long strings cut). */
    row: text("row").notNull(),
  },
  (table) => [index("request_log_dead_letters_created_idx").on(table.createdAt.desc())],
);
