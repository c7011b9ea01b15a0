import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrationsFolder, openDatabase, resultRows, users } from "@tollgate/db";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { type FreshDatabase, freshDatabase, seedDataFolder, usePostgres } from "./fresh-database";
import { SETUP_TIMEOUT_MS } from "./timeouts";

const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };

async function appliedMigrations(database: FreshDatabase): Promise<number> {
  const rows = resultRows(await database.handle.db.execute(sql`select count(*)::int as applied from drizzle.__drizzle_migrations`));
  return Number(rows[0]?.applied);
}

describe("freshDatabase", () => {
  let first: FreshDatabase;
  let second: FreshDatabase;

  beforeAll(async () => {
    first = await freshDatabase();
    second = await freshDatabase();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await first?.drop();
    await second?.drop();
  }, SETUP_TIMEOUT_MS);

  test("gives a database with every migration of drizzle/ applied and no rows", async () => {
    expect(await appliedMigrations(first)).toBe(journal.entries.length);
    expect(await first.handle.db.select().from(users)).toEqual([]);
  });

  test("gives each caller a database of its own: what one writes the other never sees", async () => {
    await first.handle.db.insert(users).values({ name: "only-in-the-first" });
    expect((await first.handle.db.select().from(users)).map((user) => user.name)).toEqual(["only-in-the-first"]);
    expect(await second.handle.db.select().from(users)).toEqual([]);
    expect(await appliedMigrations(second)).toBe(journal.entries.length);
  });

  test.skipIf(!usePostgres)("on Postgres, clones one migrated template that is left complete and unconnected", async () => {
    const admin = postgres(process.env.DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      const templates = await admin`select datname from pg_database where datname like 'tollgate_template_%'`;
      const names = templates.map((row) => row.datname as string);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((name) => name.endsWith("_building"))).toEqual([]);
      const connected = await admin`select count(*)::int as sessions from pg_stat_activity where datname like 'tollgate_template_%'`;
      expect(connected[0]?.sessions).toBe(0);
      // Each caller gets a clone of its own, which its drop() removes; the template stays for the next.
      expect(new URL(first.url as string).pathname).toStartWith("/tollgate_t_");
    } finally {
      await admin.end({ timeout: 5 });
    }
  });
});

describe("seedDataFolder", () => {
  const folders: string[] = [];

  afterAll(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  function newFolder(): string {
    const folder = mkdtempSync(join(tmpdir(), "tollgate-seeded-"));
    folders.push(folder);
    return folder;
  }

  async function namesIn(dataDir: string): Promise<{ names: string[]; applied: number }> {
    const handle = await openDatabase({ dataDir });
    try {
      const rows = resultRows(await handle.db.execute(sql`select count(*)::int as applied from drizzle.__drizzle_migrations`));
      return { names: (await handle.db.select().from(users)).map((user) => user.name), applied: Number(rows[0]?.applied) };
    } finally {
      await handle.close();
    }
  }

  test(
    "gives an embedded data folder a migrated database of its own, which opens without being created",
    async () => {
      const first = newFolder();
      const second = newFolder();
      await seedDataFolder(first, true);
      await seedDataFolder(second, true);
      // A folder that held no database would be created on open: with no prepareNew, never migrated.
      expect(await namesIn(first)).toEqual({ names: [], applied: journal.entries.length });
      const handle = await openDatabase({ dataDir: first });
      try {
        await handle.db.insert(users).values({ name: "only-in-the-first" });
      } finally {
        await handle.close();
      }
      expect(await namesIn(first)).toEqual({ names: ["only-in-the-first"], applied: journal.entries.length });
      expect(await namesIn(second)).toEqual({ names: [], applied: journal.entries.length });
    },
    SETUP_TIMEOUT_MS,
  );

  test("leaves the folder empty when the processes run on Postgres", async () => {
    const folder = newFolder();
    await seedDataFolder(folder, false);
    expect(readdirSync(folder)).toEqual([]);
  });
});
