import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import type { DatabaseHandle } from "./client";

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "drizzle");

/** Arbitrary constant: instances starting together on one Postgres take turns at migrating. */
const MIGRATION_LOCK_ID = 7_201_911;

/** Applies the committed migrations in `drizzle/`; safe to call from several processes at once. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  if (handle.kind === "pglite") {
    await migratePglite(handle.db as never, { migrationsFolder });
    return;
  }
  // One connection, so that the advisory lock and the migration share a session.
  const client = postgres(handle.url as string, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgres(drizzle(client), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
