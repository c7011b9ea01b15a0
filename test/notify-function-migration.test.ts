import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DatabaseHandle, INVALIDATION_CHANNEL, migrateDatabase, migrationsFolder, parseInvalidation, resultRows, teams } from "@tollgate/db";
import { eq, sql } from "drizzle-orm";
import { freshDatabase } from "./helpers/fresh-database";
import { waitFor } from "./helpers/gateway-fixture";
import { emptyDatabase as emptyDatabaseForTest, migrateFirst } from "./helpers/migration-test";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const journal = JSON.parse(readFileSync(join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: Array<{ tag: string }> };
const BODY = /CREATE OR REPLACE FUNCTION tollgate_notify_change\(\) RETURNS trigger AS \$\$([\s\S]*?)\$\$ LANGUAGE plpgsql;/;

/**
 * The migration that last writes the body of tollgate_notify_change() (today 0017; 0001 only declares it
 * for its triggers), its position in the journal, and the body between its $$ quotes.
 */
function latestBody(): { index: number; body: string } {
  for (let index = journal.entries.length - 1; index >= 0; index--) {
    const tag = journal.entries[index]!.tag;
    const match = BODY.exec(readFileSync(join(migrationsFolder, `${tag}.sql`), "utf8"));
    if (match) return { index, body: match[1]! };
  }
  throw new Error("no migration writes tollgate_notify_change()");
}

async function installed(handle: DatabaseHandle): Promise<{ body: string; triggers: string[] }> {
  const [fn] = resultRows(await handle.db.execute(sql`select prosrc from pg_proc where proname = 'tollgate_notify_change'`));
  const triggers = resultRows(
    await handle.db.execute(sql`select tgname from pg_trigger where tgfoid = 'tollgate_notify_change'::regproc order by tgname`),
  ).map((row) => String(row.tgname));
  return { body: String(fn?.prosrc), triggers };
}

const TRIGGERS = ["channels_notify", "mcp_servers_notify", "model_prices_notify", "settings_notify", "teams_notify", "tokens_notify", "users_notify"];

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function emptyDatabase(): Promise<DatabaseHandle> {
  const database = await emptyDatabaseForTest();
  cleanups.push(() => database.drop());
  return database.handle;
}

describe("the NOTIFY function tollgate_notify_change()", () => {
  const latest = latestBody();

  test("a fresh database has the body of the migration that last writes it, called by the triggers of 0001", async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    // Released files last wrote a body in 0010: databases past it hold that body, the others get it from here.
    expect(latest.index).toBeGreaterThanOrEqual(journal.entries.findIndex((entry) => entry.tag === "0010_budget_periods_spend_alerts"));
    expect(await installed(database.handle)).toEqual({ body: latest.body, triggers: TRIGGERS });
  });

  // A database that last migrated before that migration holds whatever body an earlier release wrote (0001's
  // up to 0006, 0007's up to 0009); these files no longer carry those, so a stand-in plays the older body.
  test("a database that last migrated just before it, with an older body, ends with the same body", async () => {
    const handle = await emptyDatabase();
    await migrateFirst(handle, latest.index);
    await handle.execute(`CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('tollgate_invalidate', '{"body":"an older release''s"}');
  RETURN NULL;
END;
$$ LANGUAGE plpgsql`);
    await migrateDatabase(handle);
    expect(await installed(handle)).toEqual({ body: latest.body, triggers: TRIGGERS });
  });

  test("a team's spend moved by the write-behind is announced as usage (refresh), any other edit of it as a change (evict)", async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    const db = database.handle.db;
    const kinds: string[] = [];
    const unlisten = await database.handle.listen(INVALIDATION_CHANNEL, {
      onNotify(payload) {
        const message = parseInvalidation(payload);
        if (message?.table === "teams") kinds.push(message.kind);
      },
      onConnect() {},
    });
    try {
      const [team] = await db.insert(teams).values({ name: "notified" }).returning({ id: teams.id });
      const byId = eq(teams.id, team!.id);
      await db.update(teams).set({ usedTotal: 10, periodStart: new Date(), periodUsed: 10, updatedAt: new Date() }).where(byId);
      await db.update(teams).set({ description: "renamed" }).where(byId);
      await db.update(teams).set({ usedTotal: 20, rpmLimit: 5 }).where(byId);
      await waitFor(() => kinds.length === 4, "the team's notifications");
      expect(kinds).toEqual(["change", "usage", "change", "change"]);
    } finally {
      await unlisten();
    }
  });
});
