import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { asc, eq } from "drizzle-orm";
import { type ConsoleUnderTest, rejection, type SignedInUser, startConsole } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const IN_A_WEEK = new Date(Date.now() + 7 * 86_400_000);
const IN_A_DAY = new Date(Date.now() + 86_400_000);
const IN_A_MONTH = new Date(Date.now() + 30 * 86_400_000);

describe("token entitlements: a user edits within what an admin granted", () => {
  let harness: ConsoleUnderTest;
  let admin: SignedInUser;
  let alice: SignedInUser;
  beforeAll(async () => {
    harness = await startConsole();
    admin = await harness.signedInUser({ name: "root", role: "admin" });
    alice = await harness.signedInUser({ name: "alice", group: "default" });
  });
  afterAll(() => harness.close());

  /** An admin-made token for alice with the given limits, and its id. */
  const granted = async (limits: Parameters<SignedInUser["caller"]["tokens"]["create"]>[0] extends infer Input ? Omit<Input & object, "name" | "userId"> : never) => {
    const { token } = await admin.caller.tokens.create({ name: "granted", userId: alice.id, ...limits });
    return token.id;
  };

  const rowOf = async (id: number) => {
    const [row] = await harness.database.handle.db.select().from(tokens).where(eq(tokens.id, id));
    return row!;
  };

  /** Expects alice's update to be refused on exactly `fields`, and the row to be left as it was. */
  const refusedOn = async (update: () => Promise<unknown>, id: number, fields: string[]) => {
    const before = await rowOf(id);
    // Started only now: a promise that rejected while `before` was read would count as unhandled.
    const failure = await rejection(update());
    expect(failure.code).toBe("FORBIDDEN");
    expect(Object.keys(failure.fieldErrors ?? {}).sort()).toEqual([...fields].sort());
    expect(await rowOf(id)).toEqual(before);
    return failure;
  };

  test("the issue's case: lifting the quota, models and RPM an admin set is refused, field by field, and nothing is written", async () => {
    const id = await granted({ quotaLimit: "5", allowedModels: ["gpt-4o-mini"], rpmLimit: 60 });
    const failure = await refusedOn(() => alice.caller.tokens.update({ id, quotaLimit: null, allowedModels: [], rpmLimit: null }), id, [
      "quotaLimit",
      "allowedModels",
      "rpmLimit",
    ]);
    expect(failure.fieldErrors?.quotaLimit).toEqual(["An administrator capped this token's quota at 5 USD: enter that or less"]);
    expect(failure.fieldErrors?.allowedModels).toEqual(["An administrator limited this token to gpt-4o-mini: choose among them"]);
    expect(failure.fieldErrors?.rpmLimit).toEqual(["An administrator allows this token at most 60 requests per minute: enter that or less"]);
  });

  test("quota: the owner may lower it and raise it back to the ceiling, not above it nor to unlimited", async () => {
    const id = await granted({ quotaLimit: "5" });
    expect((await alice.caller.tokens.update({ id, quotaLimit: "1.5" })).quotaLimit).toBe(1_500_000);
    expect((await alice.caller.tokens.update({ id, quotaLimit: "5" })).quotaLimit).toBe(5_000_000);
    await refusedOn(() => alice.caller.tokens.update({ id, quotaLimit: "5.000001" }), id, ["quotaLimit"]);
    await refusedOn(() => alice.caller.tokens.update({ id, quotaLimit: null }), id, ["quotaLimit"]);
  });

  test("models: the owner may drop models and add them back, not add others nor allow every model", async () => {
    const id = await granted({ allowedModels: ["gpt-4o", "gpt-4o-mini"] });
    expect((await alice.caller.tokens.update({ id, allowedModels: ["gpt-4o-mini"] })).allowedModels).toEqual(["gpt-4o-mini"]);
    expect((await alice.caller.tokens.update({ id, allowedModels: ["gpt-4o", "gpt-4o-mini"] })).allowedModels).toEqual(["gpt-4o", "gpt-4o-mini"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedModels: ["gpt-4o", "o3"] }), id, ["allowedModels"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedModels: [] }), id, ["allowedModels"]);
  });

  test("IP allow-list: the owner may narrow to addresses and ranges inside the granted ones, not outside nor to any address", async () => {
    const id = await granted({ allowedIps: ["10.0.0.0/8", "2001:db8::/32"] });
    const narrowed = await alice.caller.tokens.update({ id, allowedIps: ["10.1.0.0/16", "10.2.3.4", "2001:db8:1::/48"] });
    expect(narrowed.allowedIps).toEqual(["10.1.0.0/16", "10.2.3.4", "2001:db8:1::/48"]);
    expect((await alice.caller.tokens.update({ id, allowedIps: ["10.0.0.0/8"] })).allowedIps).toEqual(["10.0.0.0/8"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedIps: ["10.0.0.0/7"] }), id, ["allowedIps"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedIps: ["10.0.0.1", "192.0.2.1"] }), id, ["allowedIps"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedIps: ["2001:db9::1"] }), id, ["allowedIps"]);
    await refusedOn(() => alice.caller.tokens.update({ id, allowedIps: [] }), id, ["allowedIps"]);
  });

  test("requests and tokens per minute: the owner may lower them and raise them back, not above nor to no limit", async () => {
    const id = await granted({ rpmLimit: 60, tpmLimit: 10_000 });
    expect(await alice.caller.tokens.update({ id, rpmLimit: 10, tpmLimit: 500 })).toMatchObject({ rpmLimit: 10, tpmLimit: 500 });
    expect(await alice.caller.tokens.update({ id, rpmLimit: 60, tpmLimit: 10_000 })).toMatchObject({ rpmLimit: 60, tpmLimit: 10_000 });
    await refusedOn(() => alice.caller.tokens.update({ id, rpmLimit: 61 }), id, ["rpmLimit"]);
    await refusedOn(() => alice.caller.tokens.update({ id, rpmLimit: null }), id, ["rpmLimit"]);
    const tpm = await refusedOn(() => alice.caller.tokens.update({ id, tpmLimit: 10_001 }), id, ["tpmLimit"]);
    expect(tpm.fieldErrors?.tpmLimit).toEqual(["An administrator allows this token at most 10000 tokens per minute: enter that or less"]);
    await refusedOn(() => alice.caller.tokens.update({ id, tpmLimit: null }), id, ["tpmLimit"]);
  });

  test("expiry: the owner may bring it forward and back to the granted date, not past it nor to never", async () => {
    const id = await granted({ expiresAt: IN_A_WEEK.toISOString() });
    expect((await alice.caller.tokens.update({ id, expiresAt: IN_A_DAY.toISOString() })).expiresAt).toEqual(IN_A_DAY);
    expect((await alice.caller.tokens.update({ id, expiresAt: IN_A_WEEK.toISOString() })).expiresAt).toEqual(IN_A_WEEK);
    await refusedOn(() => alice.caller.tokens.update({ id, expiresAt: IN_A_MONTH.toISOString() }), id, ["expiresAt"]);
    await refusedOn(() => alice.caller.tokens.update({ id, expiresAt: null }), id, ["expiresAt"]);
  });

  test("status: the owner may disable and enable their token, but not enable one an admin disabled", async () => {
    const id = await granted({});
    expect((await alice.caller.tokens.update({ id, status: "disabled" })).status).toBe("disabled");
    expect((await alice.caller.tokens.update({ id, status: "enabled" })).status).toBe("enabled");
    await admin.caller.tokens.update({ id, status: "disabled" });
    const failure = await refusedOn(() => alice.caller.tokens.update({ id, status: "enabled" }), id, ["status"]);
    expect(failure.message).toBe("An administrator disabled this token: only an administrator can enable it");
    await admin.caller.tokens.update({ id, status: "enabled" });
    expect((await alice.caller.tokens.update({ id, status: "disabled" })).status).toBe("disabled");
    expect((await alice.caller.tokens.update({ id, status: "enabled" })).status).toBe("enabled");
  });

  test("resubmitting every field as it is (what the edit form sends) changes only what changed", async () => {
    const id = await granted({ quotaLimit: "5", allowedModels: ["gpt-4o-mini"], allowedIps: ["10.0.0.0/8"], rpmLimit: 60, tpmLimit: 1000, expiresAt: IN_A_WEEK.toISOString(), group: "vip" });
    const current = await alice.caller.tokens.byId({ id });
    const updated = await alice.caller.tokens.update({
      id,
      name: "renamed",
      group: current.group,
      quotaLimit: "4",
      expiresAt: current.expiresAt!.toISOString(),
      allowedModels: current.allowedModels,
      allowedIps: current.allowedIps,
      rpmLimit: current.rpmLimit,
      tpmLimit: current.tpmLimit,
    });
    expect(updated).toMatchObject({ name: "renamed", group: "vip", quotaLimit: 4_000_000, rpmLimit: 60 });
  });

  test("an admin's edit moves the ceiling: raised, the owner may follow; lifted, the owner is free", async () => {
    const id = await granted({ quotaLimit: "5", rpmLimit: 60 });
    await admin.caller.tokens.update({ id, quotaLimit: "20" });
    expect((await alice.caller.tokens.update({ id, quotaLimit: "15" })).quotaLimit).toBe(15_000_000);
    await refusedOn(() => alice.caller.tokens.update({ id, quotaLimit: "21" }), id, ["quotaLimit"]);
    // The admin's edit named only the quota: the RPM ceiling stays.
    await refusedOn(() => alice.caller.tokens.update({ id, rpmLimit: 61 }), id, ["rpmLimit"]);
    await admin.caller.tokens.update({ id, quotaLimit: null, rpmLimit: null });
    expect(await alice.caller.tokens.update({ id, quotaLimit: null, rpmLimit: 1_000 })).toMatchObject({ quotaLimit: null, rpmLimit: 1_000 });
  });

  test("an admin is not held by the ceilings, on anyone's token", async () => {
    const id = await granted({ quotaLimit: "5", allowedModels: ["gpt-4o-mini"], rpmLimit: 60 });
    const lifted = await admin.caller.tokens.update({ id, quotaLimit: null, allowedModels: [], rpmLimit: null, group: "vip" });
    expect(lifted).toMatchObject({ quotaLimit: null, allowedModels: [], rpmLimit: null, group: "vip" });
  });

  test("a token its owner created has no ceilings: they may set and lift every limit", async () => {
    const { token } = await alice.caller.tokens.create({ name: "own", quotaLimit: "1", allowedModels: ["gpt-4o-mini"], allowedIps: ["10.0.0.1"], rpmLimit: 5, tpmLimit: 5 });
    expect((await rowOf(token.id)).grantedLimits).toEqual({});
    const lifted = await alice.caller.tokens.update({ id: token.id, quotaLimit: null, allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null, expiresAt: null });
    expect(lifted).toMatchObject({ quotaLimit: null, allowedModels: [], allowedIps: [], rpmLimit: null, tpmLimit: null, expiresAt: null });
  });

  test("the ceilings are returned with the token, for the form to show them", async () => {
    const id = await granted({ quotaLimit: "5", allowedModels: ["gpt-4o-mini"] });
    const token = await alice.caller.tokens.byId({ id });
    expect(token.grantedLimits).toEqual({ quotaLimit: 5_000_000, expiresAt: null, allowedModels: ["gpt-4o-mini"], allowedIps: [], rpmLimit: null, tpmLimit: null });
  });

  test("over HTTP, a refusal reaches the client as 403 with the field's message", async () => {
    const id = await granted({ rpmLimit: 60 });
    const response = await harness.console.handle(
      new Request("http://console.test/trpc/tokens.update", {
        method: "POST",
        headers: { "content-type": "application/json", cookie: alice.cookie, origin: "http://console.test" },
        body: JSON.stringify({ json: { id, rpmLimit: null } }),
      }),
    );
    expect(response!.status).toBe(403);
    const body = (await response!.json()) as { error: { json: { data: { fieldErrors: Record<string, string[]> } } } };
    expect(body.error.json.data.fieldErrors).toEqual({ rpmLimit: ["An administrator allows this token at most 60 requests per minute: enter that or less"] });
    expect((await rowOf(id)).rpmLimit).toBe(60);
  });
});

describe("token groups: only admins set them", () => {
  let harness: ConsoleUnderTest;
  let admin: SignedInUser;
  let alice: SignedInUser;
  beforeAll(async () => {
    harness = await startConsole();
    admin = await harness.signedInUser({ name: "root", role: "admin" });
    alice = await harness.signedInUser({ name: "alice", group: "default" });
  });
  afterAll(() => harness.close());

  test("a user cannot create a token in another group, and nothing is written", async () => {
    const failure = await rejection(alice.caller.tokens.create({ name: "vip", group: "vip" }));
    expect(failure.code).toBe("FORBIDDEN");
    expect(failure.fieldErrors).toEqual({ group: ["Only an administrator can set a token's group"] });
    expect(await harness.database.handle.db.select().from(tokens).where(eq(tokens.userId, alice.id))).toEqual([]);
  });

  test("a user naming their own group gets a token that follows their group", async () => {
    const { token } = await alice.caller.tokens.create({ name: "mine", group: "default" });
    expect(token.group).toBeNull();
  });

  test("a user cannot change a token's group: not their own token's, nor one an admin set", async () => {
    const { token: own } = await alice.caller.tokens.create({ name: "own" });
    const onOwn = await rejection(alice.caller.tokens.update({ id: own.id, group: "vip" }));
    expect(onOwn.code).toBe("FORBIDDEN");
    expect(onOwn.fieldErrors).toEqual({ group: ["Only an administrator can change a token's group"] });
    const { token: issued } = await admin.caller.tokens.create({ name: "issued", userId: alice.id, group: "vip" });
    expect((await rejection(alice.caller.tokens.update({ id: issued.id, group: null }))).fieldErrors).toEqual({
      group: ["Only an administrator can change a token's group"],
    });
    expect((await rejection(alice.caller.tokens.update({ id: issued.id, group: "batch" }))).code).toBe("FORBIDDEN");
    const rows = await harness.database.handle.db.select({ id: tokens.id, group: tokens.group }).from(tokens).orderBy(asc(tokens.id));
    expect(rows.find((row) => row.id === own.id)?.group).toBeNull();
    expect(rows.find((row) => row.id === issued.id)?.group).toBe("vip");
  });

  test("an admin sets any group, on create and update", async () => {
    const { token } = await admin.caller.tokens.create({ name: "batch", userId: alice.id, group: "batch" });
    expect(token.group).toBe("batch");
    expect((await admin.caller.tokens.update({ id: token.id, group: "vip" })).group).toBe("vip");
  });
});
