import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spendAlerts } from "@tollgate/db";
import { type Cli, cliOn, type ConsoleUnderTest, fieldRefusal, rejection, type SignedInUser, startConsole } from "./console-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;
let cli: Cli;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  cli = await cliOn(harness.database);
});

afterAll(() => harness.close());

describe("budget periods in the console", () => {
  test("a token created with a monthly quota in a time zone shows its period's spend and its reset", async () => {
    const { token } = await admin.caller.tokens.create({ name: "monthly", userId: alice.id, quotaLimit: "50", budgetPeriod: "monthly", budgetTimeZone: "America/New_York" });
    expect(token.budget).toMatchObject({ period: "monthly", timeZone: "America/New_York", limit: 50_000_000, spent: 0 });
    expect(token.budget.resetsAt!.getTime()).toBeGreaterThan(Date.now());
    const listed = (await alice.caller.tokens.list()).items.find((row) => row.id === token.id);
    expect(listed?.budget.resetsAt?.toISOString()).toBe(token.budget.resetsAt!.toISOString());
  });

  test("a user's budget is set by an administrator and shown with its period", async () => {
    const updated = await admin.caller.users.update({ id: alice.id, budget: "20", budgetPeriod: "weekly" });
    expect(updated.budget).toMatchObject({ period: "weekly", timeZone: "UTC", limit: 20_000_000, spent: 0 });
    expect(updated.budget.periodStart!.getUTCDay()).toBe(1);
  });

  test("a bad period or time zone gets the same message in the console as in the CLI", async () => {
    const period = 'Must be "none", "daily", "weekly" or "monthly"';
    const zone = 'Must be an IANA time zone, such as "UTC" or "Europe/Paris"';
    expect(await fieldRefusal(() => admin.caller.tokens.create({ name: "t", userId: alice.id, budgetPeriod: "hourly" }), "budgetPeriod")).toEqual({ code: "BAD_REQUEST", messages: [period] });
    expect(await fieldRefusal(() => admin.caller.tokens.create({ name: "t", userId: alice.id, budgetTimeZone: "Paris" }), "budgetTimeZone")).toEqual({ code: "BAD_REQUEST", messages: [zone] });
    expect(await fieldRefusal(() => admin.caller.users.update({ id: alice.id, budgetTimeZone: "Nowhere/Town" }), "budgetTimeZone")).toEqual({ code: "BAD_REQUEST", messages: [zone] });
    expect(await cli("token", "create", "--user", "alice", "--name", "t", "--period", "hourly")).toEqual({ exitCode: 2, stdout: "", stderr: `error: --period must be "none", "daily", "weekly" or "monthly"\n` });
    expect(await cli("user", "budget", "alice", "--time-zone", "Paris")).toEqual({ exitCode: 2, stdout: "", stderr: `error: --time-zone must be an IANA time zone, such as "UTC" or "Europe/Paris"\n` });
  });

  test("an owner cannot change the period of a quota an administrator set on their token", async () => {
    const { token } = await admin.caller.tokens.create({ name: "granted", userId: alice.id, quotaLimit: "5", budgetPeriod: "monthly" });
    const failure = await rejection(alice.caller.tokens.update({ id: token.id, budgetPeriod: "daily" }));
    expect(failure.code).toBe("FORBIDDEN");
    expect(failure.fieldErrors?.budgetPeriod).toEqual(["Only an administrator can change the budget period of a quota an administrator set"]);
    const { token: own } = await alice.caller.tokens.create({ name: "mine", quotaLimit: "5", budgetPeriod: "monthly" });
    expect((await alice.caller.tokens.update({ id: own.id, budgetPeriod: "daily" })).budget.period).toBe("daily");
  });
});

describe("spend alert settings and notices in the console", () => {
  test("an administrator sets the webhook; its secret never comes back in full", async () => {
    const secret = "console-secret-0123456789-ABCD";
    const view = await admin.caller.alerts.updateSettings({ webhookUrl: "https://alerts.example.com/in", webhookSecret: secret, thresholds: [100, 75] });
    expect(view).toEqual({ webhookUrl: "https://alerts.example.com/in", webhookSecretMasked: "…ABCD", thresholds: [75, 100] });
    expect(JSON.stringify(await admin.caller.alerts.settings())).not.toContain(secret);
  });

  test("a user may not read or change the alert settings", async () => {
    expect((await rejection(alice.caller.alerts.settings())).code).toBe("FORBIDDEN");
    expect((await rejection(alice.caller.alerts.updateSettings({ webhookUrl: "" }))).code).toBe("FORBIDDEN");
  });

  test("a bad webhook URL or secret is refused under its field", async () => {
    expect(await fieldRefusal(() => admin.caller.alerts.updateSettings({ webhookUrl: "javascript:alert(1)" }), "webhookUrl")).toEqual({
      code: "BAD_REQUEST",
      messages: ["Must be an http:// or https:// URL, or empty to turn the webhook off"],
    });
    expect(await fieldRefusal(() => admin.caller.alerts.updateSettings({ webhookSecret: "short" }), "webhookSecret")).toEqual({
      code: "BAD_REQUEST",
      messages: ["Must be 16 to 256 characters without whitespace, or empty to send unsigned"],
    });
  });

  test("the notices list every alert to an administrator and only their own to a user", async () => {
    const common = { period: "monthly", periodStart: new Date("2026-11-01T00:00:00Z"), periodEnd: new Date("2026-12-01T00:00:00Z"), spent: 40_000_000, limit: 50_000_000 };
    await harness.database.handle.db.insert(spendAlerts).values([
      { subjectKind: "user", subjectId: alice.id, userId: alice.id, userName: "alice", threshold: 80, ...common },
      { subjectKind: "user", subjectId: admin.id, userId: admin.id, userName: "root", threshold: 80, ...common },
    ]);
    const mine = await alice.caller.alerts.list();
    expect(mine.map((alert) => alert.userName)).toEqual(["alice"]);
    const all = await admin.caller.alerts.list({ limit: 10 });
    expect(all.map((alert) => alert.userName).sort()).toEqual(["alice", "root"]);
  });
});
