import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens, users } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { asc } from "drizzle-orm";
import { freshDatabaseForBlock, migrationStatement } from "../helpers/migration-test";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

/** The statement of migration 0006 that gives the tokens that existed before it their ceilings. */
function backfillStatement(): string {
  return migrationStatement("0006_token_granted_limits.sql", "UPDATE");
}

describe("migration 0006: tokens that existed before it", () => {
  const database = freshDatabaseForBlock();

  test("get their current limits as ceilings, since who set them is unknown; an unlimited token gets none", async () => {
    const db = database.current.handle.db;
    const [owner] = await db.insert(users).values({ name: "owner" }).returning({ id: users.id });
    const row = (name: string) => {
      const secret = generateTokenSecret();
      return { userId: owner!.id, name, keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret) };
    };
    await db.insert(tokens).values([
      {
        ...row("limited"),
        quotaLimit: 5_000_000,
        expiresAt: new Date("2099-01-02T03:04:05.678Z"),
        allowedModels: ["gpt-4o-mini"],
        allowedIps: ["10.0.0.0/8"],
        rpmLimit: 60,
        tpmLimit: 1000,
      },
      { ...row("disabled"), status: "disabled", rpmLimit: 5 },
      { ...row("open") },
    ]);
    await database.current.handle.execute(backfillStatement());
    const granted = await db.select({ name: tokens.name, grantedLimits: tokens.grantedLimits }).from(tokens).orderBy(asc(tokens.id));
    expect(granted).toEqual([
      {
        name: "limited",
        grantedLimits: {
          quotaLimit: 5_000_000,
          expiresAt: "2099-01-02T03:04:05.678Z",
          allowedModels: ["gpt-4o-mini"],
          allowedIps: ["10.0.0.0/8"],
          rpmLimit: 60,
          tpmLimit: 1000,
        },
      },
      { name: "disabled", grantedLimits: { rpmLimit: 5, disabled: true } },
      { name: "open", grantedLimits: {} },
    ]);
  });
});
