import { afterAll, beforeAll } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { migrationsFolder } from "@tollgate/db";
import { type FreshDatabase, freshDatabase } from "./fresh-database";

/**
 * The statement of a migration file (drizzle's statements are split by "--> statement-breakpoint") that
 * contains `marker`: migration tests run a backfill again on rows written as before it.
 */
export function migrationStatement(file: string, marker: string): string {
  const text = readFileSync(join(migrationsFolder, file), "utf8");
  const statement = text.split("--> statement-breakpoint").find((part) => part.includes(marker));
  if (!statement) throw new Error(`migration ${file} has no statement with ${marker}`);
  return statement;
}

/**
 * A fresh database for the tests of the calling describe block, created before them and dropped after
 * them; read `.current` inside a test.
 */
export function freshDatabaseForBlock(): { readonly current: FreshDatabase } {
  let database: FreshDatabase | undefined;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(() => database?.drop());
  return {
    get current() {
      if (!database) throw new Error("the block's database is made in beforeAll: read it inside a test");
      return database;
    },
  };
}
