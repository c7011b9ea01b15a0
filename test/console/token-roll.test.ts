import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { hashTokenSecret } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type ConsoleUnderTest, rejection, startConsole, type SignedInUser } from "./console-fixture";

// A bound on hangs (a fresh PGlite migrates slowly on a busy machine), not a tuned timing.
setDefaultTimeout(60_000);

describe("tokens.roll", () => {
  let harness: ConsoleUnderTest;
  let alice: SignedInUser;
  let bob: SignedInUser;
  beforeAll(async () => {
    harness = await startConsole();
    alice = await harness.signedInUser({ name: "alice" });
    bob = await harness.signedInUser({ name: "bob" });
  });
  afterAll(() => harness.close());

  test("returns the new secret once and shows the old one's prefix, grace end and last use, never a hash", async () => {
    const created = await alice.caller.tokens.create({ name: "laptop", quotaLimit: "2" });
    const rolled = await alice.caller.tokens.roll({ id: created.token.id, graceSeconds: 600 });
    expect(rolled.secret).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(rolled.token).toMatchObject({ id: created.token.id, name: "laptop", quotaLimit: 2_000_000, previousKeyPrefix: created.token.keyPrefix, previousKeyLastUsedAt: null });
    expect(rolled.token.previousKeyExpiresAt!.getTime() - rolled.token.rolledAt!.getTime()).toBe(600_000);
    const [row] = await harness.database.handle.db.select().from(tokens).where(eq(tokens.id, created.token.id));
    expect(row!.keyHash).toBe(hashTokenSecret(rolled.secret));
    const shown = JSON.stringify(await alice.caller.tokens.byId({ id: created.token.id }));
    for (const secret of [created.secret, rolled.secret, row!.keyHash, row!.previousKeyHash!]) expect(shown).not.toContain(secret);
    expect(shown).not.toContain("previousKeyHash");
  });

  test("a user cannot roll another user's token, which is reported as missing", async () => {
    const created = await alice.caller.tokens.create({ name: "private" });
    const refused = await rejection(bob.caller.tokens.roll({ id: created.token.id }));
    expect(refused.code).toBe("NOT_FOUND");
    const [row] = await harness.database.handle.db.select().from(tokens).where(eq(tokens.id, created.token.id));
    expect(row!.keyHash).toBe(hashTokenSecret(created.secret));
  });

  test("a grace period past 30 days is refused with a message about the field", async () => {
    const created = await alice.caller.tokens.create({ name: "long" });
    const refused = await rejection(alice.caller.tokens.roll({ id: created.token.id, graceSeconds: 31 * 86400 }));
    expect(refused.code).toBe("BAD_REQUEST");
  });
});
