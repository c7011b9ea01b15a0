import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { displayPrefix, hashTokenSecret } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
  await harness.runJson("user", "create", "--name", "carol");
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

async function tokenRow(id: number) {
  const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.id, id));
  if (!row) throw new Error(`no token ${id}`);
  return row;
}

type Rolled = { id: number; key: string; prefix: string; previousPrefix: string | null; previousKeyExpiresAt: string | null };

describe("token roll", () => {
  test("gives the same token a new key, keeps its settings, and the old key works for 24 hours by default", async () => {
    const created = await harness.runJson<{ id: number; key: string }>("token", "create", "--user", "carol", "--name", "ci", "--quota", "5", "--rpm", "60");
    const before = await tokenRow(created.id);
    const rolled = await harness.runJson<Rolled>("token", "roll", String(created.id));
    expect(rolled.id).toBe(created.id);
    expect(rolled.key).not.toBe(created.key);
    expect(rolled.prefix).toBe(displayPrefix(rolled.key));
    expect(rolled.previousPrefix).toBe(displayPrefix(created.key));
    const row = await tokenRow(created.id);
    expect(row.keyHash).toBe(hashTokenSecret(rolled.key));
    expect(row.previousKeyHash).toBe(hashTokenSecret(created.key));
    expect(row).toMatchObject({ name: "ci", quotaLimit: before.quotaLimit, rpmLimit: 60, usedQuota: before.usedQuota, userId: before.userId });
    const graceMs = row.previousKeyExpiresAt!.getTime() - row.rolledAt!.getTime();
    expect(graceMs).toBe(24 * 3600 * 1000);
    expect(JSON.stringify(rolled)).not.toContain(row.keyHash);
    const shown = await harness.run("token", "show", String(created.id));
    expect(shown.stdout).toMatch(new RegExp(`^previous key:\\s+${displayPrefix(created.key)} \\(works until \\d{4}-`, "m"));
    expect(shown.stdout).toMatch(/^previous key last used:\s+never$/m);
  });

  test("--grace 0 refuses the old key at once, and --grace takes minutes and days", async () => {
    const created = await harness.runJson<{ id: number; key: string }>("token", "create", "--user", "carol", "--name", "now");
    const atOnce = await harness.runJson<Rolled>("token", "roll", String(created.id), "--grace", "0");
    expect(atOnce.previousPrefix).toBeNull();
    expect((await tokenRow(created.id)).previousKeyHash).toBeNull();
    await harness.runJson("token", "roll", String(created.id), "--grace", "90m");
    const row = await tokenRow(created.id);
    expect(row.previousKeyHash).toBe(hashTokenSecret(atOnce.key));
    expect(row.previousKeyExpiresAt!.getTime() - row.rolledAt!.getTime()).toBe(90 * 60 * 1000);
    await harness.runJson("token", "roll", String(created.id), "--grace", "7d");
    const week = await tokenRow(created.id);
    expect(week.previousKeyExpiresAt!.getTime() - week.rolledAt!.getTime()).toBe(7 * 86400 * 1000);
  });

  test("prints the new key once with a warning and says until when the old one works", async () => {
    const created = await harness.runJson<{ id: number }>("token", "create", "--user", "carol", "--name", "text");
    const result = await harness.run("token", "roll", String(created.id), "--grace", "2h");
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/key: sk-[0-9A-Za-z]{48}\n/);
    expect(result.stdout).toMatch(/The previous key \(sk-[^)]+\) keeps working until \d{4}-\d\d-\d\dT/);
    expect(result.stdout).toContain("shown only once");
  });

  test("refuses a malformed or too long grace period and an unknown token, writing nothing", async () => {
    const created = await harness.runJson<{ id: number }>("token", "create", "--user", "carol", "--name", "bad");
    await harness.expectRejected(["token", "roll", String(created.id), "--grace", "soon"], "--grace must be a duration");
    await harness.expectRejected(["token", "roll", String(created.id), "--grace", "31d"], "--grace");
    await harness.expectRejected(["token", "roll", "999999"], "999999");
  });
});
