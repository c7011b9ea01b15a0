import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { hashTokenSecret } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { rejection, startConsole, type ConsoleUnderTest, type SignedInUser } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

describe("tokens procedures", () => {
  let harness: ConsoleUnderTest;
  let alice: SignedInUser;
  let bob: SignedInUser;
  beforeAll(async () => {
    harness = await startConsole();
    alice = await harness.signedInUser({ name: "alice" });
    bob = await harness.signedInUser({ name: "bob" });
  });
  afterAll(() => harness.close());

  test("create returns the sk- secret once; the stored row has only its hash and prefix", async () => {
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await alice.caller.tokens.create({
      name: "laptop",
      quotaLimit: "5.25",
      expiresAt,
      allowedModels: ["gpt-4o-mini", "gpt-4o-mini"],
      allowedIps: ["10.1.2.3/8", " 2001:db8::1 ", ""],
      rpmLimit: 60,
      tpmLimit: 90_000,
    });
    expect(created.secret).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(created.token).toMatchObject({
      name: "laptop",
      quotaLimit: 5_250_000,
      usedQuota: 0,
      allowedModels: ["gpt-4o-mini"],
      allowedIps: ["10.0.0.0/8", "2001:db8::1"],
      rpmLimit: 60,
      tpmLimit: 90_000,
      status: "enabled",
      keyPrefix: `${created.secret.slice(0, 7)}…${created.secret.slice(-4)}`,
    });
    expect(created.token.expiresAt?.toISOString()).toBe(expiresAt);
    expect(JSON.stringify(created.token)).not.toContain(hashTokenSecret(created.secret));
    const [row] = await harness.database.handle.db.select().from(tokens).where(eq(tokens.id, created.token.id));
    expect(row!.keyHash).toBe(hashTokenSecret(created.secret));

    // No other procedure returns the secret or the hash.
    const listed = JSON.stringify(await alice.caller.tokens.list());
    const single = JSON.stringify(await alice.caller.tokens.byId({ id: created.token.id }));
    const updated = JSON.stringify(await alice.caller.tokens.update({ id: created.token.id, name: "laptop 2" }));
    for (const text of [listed, single, updated]) {
      expect(text).not.toContain(created.secret);
      expect(text).not.toContain(row!.keyHash);
      expect(text).not.toContain("keyHash");
    }
  });

  test("defaults: never expires, unlimited quota, all models, any IP", async () => {
    const { token } = await alice.caller.tokens.create({ name: "defaults" });
    expect(token).toMatchObject({ expiresAt: null, quotaLimit: null, allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null, group: null });
  });

  test("a user cannot read, change or delete another user's token, nor create one for them", async () => {
    const { token } = await alice.caller.tokens.create({ name: "private" });
    expect((await rejection(bob.caller.tokens.byId({ id: token.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(bob.caller.tokens.update({ id: token.id, status: "disabled" }))).code).toBe("NOT_FOUND");
    expect((await rejection(bob.caller.tokens.delete({ id: token.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(bob.caller.tokens.list({ userId: alice.id }))).code).toBe("FORBIDDEN");
    expect((await rejection(bob.caller.tokens.create({ name: "for alice", userId: alice.id }))).code).toBe("FORBIDDEN");
    expect((await bob.caller.tokens.list()).items.map((item) => item.id)).not.toContain(token.id);
    expect((await alice.caller.tokens.byId({ id: token.id })).status).toBe("enabled");
  });

  test("an admin sees every token and may create one for another user", async () => {
    const admin = await harness.signedInUser({ role: "admin" });
    const { token } = await admin.caller.tokens.create({ name: "issued", userId: bob.id });
    expect(token.userId).toBe(bob.id);
    const all = await admin.caller.tokens.list();
    expect(new Set(all.items.map((item) => item.userName))).toEqual(new Set(["alice", "bob"]));
    expect((await rejection(admin.caller.tokens.create({ name: "ghost", userId: 999_999 }))).fieldErrors).toEqual({ userId: ['Unknown user "999999"'] });
  });

  test("update sets and clears the per-minute limits, leaving the others", async () => {
    const { token } = await alice.caller.tokens.create({ name: "limited", rpmLimit: 30 });
    expect(await alice.caller.tokens.update({ id: token.id, tpmLimit: 10_000 })).toMatchObject({ rpmLimit: 30, tpmLimit: 10_000 });
    expect(await alice.caller.tokens.update({ id: token.id, tpmLimit: null })).toMatchObject({ rpmLimit: 30, tpmLimit: null });
    const [row] = await harness.database.handle.db.select().from(tokens).where(eq(tokens.id, token.id));
    expect(row!.tpmLimit).toBeNull();
    const refused = await rejection(alice.caller.tokens.update({ id: token.id, tpmLimit: 0 }));
    expect(refused.fieldErrors?.tpmLimit).toEqual(["Must be a positive integer"]);
  });

  test("enable, disable and delete", async () => {
    const { token } = await alice.caller.tokens.create({ name: "short-lived" });
    expect((await alice.caller.tokens.update({ id: token.id, status: "disabled" })).status).toBe("disabled");
    expect((await alice.caller.tokens.update({ id: token.id, status: "enabled" })).status).toBe("enabled");
    await alice.caller.tokens.delete({ id: token.id });
    expect((await rejection(alice.caller.tokens.byId({ id: token.id }))).code).toBe("NOT_FOUND");
  });

  test("invalid input is refused with a message per field", async () => {
    const failure = await rejection(
      alice.caller.tokens.create({
        name: "",
        expiresAt: new Date(Date.now() - 60_000).toISOString(),
        quotaLimit: "-1",
        allowedIps: ["10.0.0.1", "300.1.1.1", "10.0.0.0/33"],
        rpmLimit: 0,
        tpmLimit: 2.5,
      }),
    );
    expect(failure.code).toBe("BAD_REQUEST");
    const fields = failure.fieldErrors ?? {};
    expect(fields.name).toEqual(["Must not be empty"]);
    expect(fields.expiresAt).toEqual(["Must be in the future"]);
    expect(fields.quotaLimit?.[0]).toContain("non-negative amount");
    expect(fields.allowedIps).toEqual([
      '"300.1.1.1" is not an IP address or CIDR range (v4 or v6)',
      '"10.0.0.0/33" is not an IP address or CIDR range (v4 or v6)',
    ]);
    expect(fields.rpmLimit).toEqual(["Must be a positive integer"]);
    expect(fields.tpmLimit).toEqual(["Must be a positive integer"]);
    const { token } = await alice.caller.tokens.create({ name: "valid" });
    const update = await rejection(alice.caller.tokens.update({ id: token.id, group: "a,b" }));
    expect(update.fieldErrors?.group).toEqual(["Must be a single group name"]);
  });

  test("over HTTP, field errors reach the client in the error's data", async () => {
    const response = await harness.console.handle(
      new Request("http://console.test/trpc/tokens.create", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: alice.cookie, origin: "http://console.test" },
        body: JSON.stringify({ json: { name: "x", allowedIps: ["not-an-ip"] } }),
      }),
    );
    expect(response!.status).toBe(400);
    const body = (await response!.json()) as { error: { json: { message: string; data: { fieldErrors: Record<string, string[]>; stack?: string } } } };
    expect(body.error.json.data.fieldErrors).toEqual({ allowedIps: ['"not-an-ip" is not an IP address or CIDR range (v4 or v6)'] });
    expect(body.error.json.data.stack).toBeUndefined();
  });

  test("a cross-site POST is refused before any procedure runs", async () => {
    const response = await harness.console.handle(
      new Request("http://console.test/trpc/tokens.create", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: alice.cookie, origin: "https://evil.example" },
        body: JSON.stringify({ json: { name: "csrf" } }),
      }),
    );
    expect(response!.status).toBe(403);
    expect((await alice.caller.tokens.list()).items.map((token) => token.name)).not.toContain("csrf");
  });
});
