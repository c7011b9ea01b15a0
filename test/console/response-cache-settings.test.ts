import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs, teams } from "@tollgate/db";
import { rejection, startConsole, type ConsoleUnderTest } from "./console-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine: a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

describe("a token's response cache through the console", () => {
  let harness: ConsoleUnderTest;
  beforeAll(async () => {
    harness = await startConsole();
  });
  afterAll(() => harness.close());

  test("an owner turns the cache on for their token, shared by their own tokens or this one only", async () => {
    const owner = await harness.signedInUser({ name: "owner" });
    const created = await owner.caller.tokens.create({ name: "cached", responseCacheTtlSeconds: 600 });
    expect(created.token).toMatchObject({ responseCacheTtlSeconds: 600, responseCacheScope: "user" });
    const narrowed = await owner.caller.tokens.update({ id: created.token.id, responseCacheScope: "token" });
    expect(narrowed).toMatchObject({ responseCacheTtlSeconds: 600, responseCacheScope: "token" });
    const off = await owner.caller.tokens.update({ id: created.token.id, responseCacheTtlSeconds: null });
    expect(off.responseCacheTtlSeconds).toBeNull();
  });

  test("only an administrator shares a token's cached answers with its group", async () => {
    const owner = await harness.signedInUser({ name: "member" });
    const admin = await harness.signedInUser({ name: "admin", role: "admin" });
    const refused = await rejection(owner.caller.tokens.create({ name: "wide", responseCacheTtlSeconds: 60, responseCacheScope: "group" }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(refused.fieldErrors?.responseCacheScope?.[0]).toContain("Only an administrator");
    const { token } = await owner.caller.tokens.create({ name: "mine", responseCacheTtlSeconds: 60 });
    const shared = await admin.caller.tokens.update({ id: token.id, responseCacheScope: "group" });
    expect(shared.responseCacheScope).toBe("group");
    // The owner may still edit the token's other settings, and narrow the scope back.
    expect((await owner.caller.tokens.update({ id: token.id, name: "renamed", responseCacheScope: "group" })).name).toBe("renamed");
    expect((await owner.caller.tokens.update({ id: token.id, responseCacheScope: "user" })).responseCacheScope).toBe("user");
  });

  test("the team scope is an administrator's choice, and only for a token of a team", async () => {
    const owner = await harness.signedInUser({ name: "team-member" });
    const admin = await harness.signedInUser({ name: "team-admin", role: "admin" });
    const [team] = await harness.database.handle.db.insert(teams).values({ name: "cache-team" }).returning({ id: teams.id });
    const personal = await rejection(admin.caller.tokens.create({ name: "personal", responseCacheTtlSeconds: 60, responseCacheScope: "team" }));
    expect(personal.code).toBe("BAD_REQUEST");
    expect(personal.fieldErrors?.responseCacheScope?.[0]).toContain("belongs to a team");
    const { token } = await admin.caller.tokens.create({ name: "of-the-team", teamId: team!.id, responseCacheTtlSeconds: 60, responseCacheScope: "team" });
    expect(token.responseCacheScope).toBe("team");
    const { token: own } = await owner.caller.tokens.create({ name: "own", responseCacheTtlSeconds: 60 });
    const widened = await rejection(owner.caller.tokens.update({ id: own.id, responseCacheScope: "team" }));
    expect(widened.fieldErrors?.responseCacheScope?.[0]).toMatch(/belongs to a team|Only an administrator/);
  });

  test("a TTL outside 1 second to a week is refused on its field", async () => {
    const owner = await harness.signedInUser({ name: "bounds" });
    const zero = await rejection(owner.caller.tokens.create({ name: "zero", responseCacheTtlSeconds: 0 }));
    expect(zero.fieldErrors?.responseCacheTtlSeconds?.[0]).toContain("at least 1 second");
    const long = await rejection(owner.caller.tokens.create({ name: "long", responseCacheTtlSeconds: 700_000 }));
    expect(long.fieldErrors?.responseCacheTtlSeconds?.[0]).toContain("at most");
  });

  test("the request log lists what the response cache did for each call", async () => {
    const owner = await harness.signedInUser({ name: "logged" });
    const { token } = await owner.caller.tokens.create({ name: "logged", responseCacheTtlSeconds: 60 });
    const row = { userId: owner.id, tokenId: token.id, endpoint: "chat.completions", model: "m", status: 200, latencyMs: 1 };
    await harness.database.handle.db.insert(requestLogs).values([
      { ...row, requestId: "cache-hit", responseCache: "hit" },
      { ...row, requestId: "no-cache", responseCache: null },
    ]);
    const listed = await owner.caller.logs.list({ tokenId: token.id });
    const byRequest = Object.fromEntries(listed.items.map((item) => [item.requestId, item.responseCache]));
    expect(byRequest).toEqual({ "cache-hit": "hit", "no-cache": null });
  });
});
