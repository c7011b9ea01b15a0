import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { balanceLogs, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

async function userRow(name: string) {
  const [row] = await harness.context.db.select().from(users).where(eq(users.name, name));
  if (!row) throw new Error(`no user ${name}`);
  return row;
}

describe("user create", () => {
  test("creates a plain user with an unlimited balance in the default group", async () => {
    const created = await harness.runJson("user", "create", "--name", "plain");
    expect(created).toEqual({
      id: expect.any(Number),
      name: "plain",
      role: "user",
      group: "default",
      status: "enabled",
      balance: "0.000000",
      balanceUnlimited: true,
      budget: {
        period: "none",
        timeZone: "UTC",
        limit: null,
        spent: "0.000000",
        remaining: null,
        periodStart: null,
        resetsAt: null,
        alertThresholds: null,
      },
      models: [],
      ips: [],
      rpm: null,
      tpm: null,
      mayCreateTokens: true,
      createdAt: expect.any(String),
    });
    const row = await userRow("plain");
    expect(row.id).toBe(created.id as number);
    expect(row).toMatchObject({ role: "user", group: "default", balance: 0, balanceUnlimited: true });
    expect(row.passwordHash).toBeNull();
  });

  test("stores the balance in micro-USD and the group given", async () => {
    const created = await harness.runJson("user", "create", "--name", "funded", "--balance", "12.5", "--group", "vip");
    expect(created).toMatchObject({ balance: "12.500000", group: "vip" });
    expect(await userRow("funded")).toMatchObject({ balance: 12_500_000, group: "vip", balanceUnlimited: false });
  });

  test("an unlimited balance sets balanceUnlimited", async () => {
    await harness.runJson("user", "create", "--name", "boundless", "--balance", "unlimited");
    expect(await userRow("boundless")).toMatchObject({ balance: 0, balanceUnlimited: true });
  });

  test("an admin gets the admin role and an argon2id hash of the password", async () => {
    const result = await harness.run("user", "create", "--name", "root", "--admin", "--password", "correct horse");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("created user");
    expect(result.stdout).not.toContain("correct horse");
    const row = await userRow("root");
    expect(row.role).toBe("admin");
    expect(row.passwordHash).toStartWith("$argon2id$");
    expect(await Bun.password.verify("correct horse", row.passwordHash as string)).toBe(true);
  });

  test("refuses bad arguments without writing anything", async () => {
    await harness.expectRejected(["user", "create"], "--name is required");
    await harness.expectRejected(["user", "create", "--name", "x", "--admin"], "--admin requires --password");
    await harness.expectRejected(["user", "create", "--name", "x", "--password", "short"], "at least 8 characters");
    await harness.expectRejected(["user", "create", "--name", "plain"], 'user "plain" already exists');
    await harness.expectRejected(["user", "create", "--name", "123"], "--name must not be only digits");
    await harness.expectRejected(["user", "create", "--name", "x", "--balance", "-5"], '--balance must be a non-negative amount in USD or "unlimited"');
    await harness.expectRejected(["user", "create", "--name", "x", "--balance", "ten"], "--balance");
    await harness.expectRejected(["user", "create", "--name", "x", "--balance", "0x10"], "--balance");
    await harness.expectRejected(["user", "create", "--name", "x", "--balance", "1.0000001"], "--balance");
    await harness.expectRejected(["user", "create", "--name", "x", "--group", "a,b"], "--group must be a single group name");
    await harness.expectRejected(["user", "create", "--name", "x", "--colour", "red"], "unknown flag --colour");
    await harness.expectRejected(["user", "create", "--name", "x", "extra"], "too many arguments");
  });
});

describe("user list", () => {
  test("lists every user in id order", async () => {
    const listed = await harness.runJson<{ id: number; name: string }[]>("user", "list");
    const rows = await harness.context.db.select().from(users);
    expect(listed.map((user) => user.id)).toEqual(rows.map((row) => row.id).sort((a, b) => a - b));
    expect(listed.map((user) => user.name)).toContain("funded");
  });

  test("prints a table for people", async () => {
    const result = await harness.run("user", "list");
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ROLE\s+GROUP\s+BALANCE\s+BUDGET\s+SPENT\s+RESETS\s+STATUS$/);
    expect(lines.find((line) => line.includes("funded"))).toContain("$12.500000");
    expect(lines.find((line) => line.includes("boundless"))).toContain("unlimited");
  });
});

describe("user topup", () => {
  test("adds to the balance and logs the change", async () => {
    const before = await userRow("funded");
    const result = await harness.runJson("user", "topup", "funded", "--amount", "2.25", "--reason", "invoice 7");
    expect(result).toEqual({
      id: before.id,
      name: "funded",
      amount: "2.250000",
      balance: "14.750000",
      balanceUnlimited: false,
      balanceLogId: expect.any(Number),
    });
    const after = await userRow("funded");
    expect(after.balance).toBe(14_750_000);
    expect(after.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const [log] = await harness.context.db
      .select()
      .from(balanceLogs)
      .where(eq(balanceLogs.id, result.balanceLogId as number));
    expect(log).toMatchObject({ userId: before.id, amount: 2_250_000, reason: "invoice 7", actorId: null });
  });

  test("finds the user by id as well as by name", async () => {
    const user = await userRow("plain");
    const result = await harness.run("user", "topup", String(user.id), "--amount", "1");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("$1.000000");
    expect((await userRow("plain")).balance).toBe(1_000_000);
  });

  test("refuses bad amounts and unknown users without writing anything", async () => {
    await harness.expectRejected(["user", "topup", "funded", "--amount", "-1"], "--amount must be a positive amount in USD");
    await harness.expectRejected(["user", "topup", "funded", "--amount", "0"], "--amount must be a positive amount");
    await harness.expectRejected(["user", "topup", "funded"], "--amount is required");
    await harness.expectRejected(["user", "topup", "--amount", "1"], "missing NAME_OR_ID");
    await harness.expectRejected(["user", "topup", "nobody", "--amount", "1"], 'unknown user "nobody"');
    await harness.expectRejected(["user", "topup", "999999", "--amount", "1"], 'unknown user "999999"');
  });
});

describe("user update", () => {
  test("sets the limits that bind all of a user's tokens, and none lifts them", async () => {
    await harness.runJson("user", "create", "--name", "limited");
    const updated = await harness.runJson(
      "user", "update", "limited", "--models", "gpt-4o-mini,gpt-4o", "--ips", "10.0.0.0/8,203.0.113.7", "--rpm", "30", "--tpm", "5000", "--may-create-tokens", "false",
    );
    expect(updated).toMatchObject({ models: ["gpt-4o-mini", "gpt-4o"], ips: ["10.0.0.0/8", "203.0.113.7"], rpm: 30, tpm: 5000, mayCreateTokens: false });
    expect(await userRow("limited")).toMatchObject({ allowedModels: ["gpt-4o-mini", "gpt-4o"], allowedIps: ["10.0.0.0/8", "203.0.113.7"], rpmLimit: 30, tpmLimit: 5000, mayCreateTokens: false });
    const lifted = await harness.runJson("user", "update", "limited", "--models", "none", "--ips", "none", "--rpm", "none", "--tpm", "none", "--may-create-tokens", "true");
    expect(lifted).toMatchObject({ models: [], ips: [], rpm: null, tpm: null, mayCreateTokens: true });
  });

  test("refuses a bad value naming its flag, and an update with nothing to change", async () => {
    await harness.runJson("user", "create", "--name", "strict");
    await harness.expectRejected(["user", "update", "strict", "--rpm", "0"], "error: --rpm must be a positive integer");
    await harness.expectRejected(["user", "update", "strict", "--ips", "10.0.0.300"], 'error: --ips: "10.0.0.300" is not an IP address or CIDR range (v4 or v6)');
    await harness.expectRejected(["user", "update", "strict", "--may-create-tokens", "maybe"], "error: --may-create-tokens must be true or false");
    await harness.expectRejected(["user", "update", "strict"], "error: user update needs --models, --ips, --rpm, --tpm or --may-create-tokens");
  });
});
