import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tokens } from "@tollgate/db";
import { displayPrefix, hashTokenSecret } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";

let harness: CliHarness;
let aliceId: number;
let bobId: number;

beforeAll(async () => {
  harness = await createCliHarness();
  aliceId = (await harness.runJson("user", "create", "--name", "alice")).id as number;
  bobId = (await harness.runJson("user", "create", "--name", "bob", "--group", "vip")).id as number;
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

async function tokenRow(id: number) {
  const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.id, id));
  if (!row) throw new Error(`no token ${id}`);
  return row;
}

async function createToken(...extra: string[]): Promise<{ id: number; key: string }> {
  return harness.runJson<{ id: number; key: string }>("token", "create", "--user", "alice", "--name", "t", ...extra);
}

describe("token create", () => {
  test("stores only the hash and prefix of the key it prints, with unlimited defaults", async () => {
    const created = await harness.runJson<Record<string, unknown> & { id: number; key: string }>(
      "token", "create", "--user", "alice", "--name", "ci",
    );
    expect(Object.keys(created).slice(0, 2)).toEqual(["id", "key"]);
    expect(created.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(created).toMatchObject({ name: "ci", userId: aliceId, prefix: displayPrefix(created.key), quotaLimit: null, expiresAt: null });
    expect(JSON.stringify(created)).not.toContain(hashTokenSecret(created.key));

    const row = await tokenRow(created.id);
    expect(row.keyHash).toBe(hashTokenSecret(created.key));
    expect(row.keyPrefix).toBe(displayPrefix(created.key));
    expect(Object.values(row).map(String).join("\n")).not.toContain(created.key.slice(3));
    expect(row).toMatchObject({
      userId: aliceId,
      name: "ci",
      status: "enabled",
      group: null,
      expiresAt: null,
      quotaLimit: null,
      usedQuota: 0,
      allowedModels: [],
      allowedIps: [],
      rpmLimit: null,
      tpmLimit: null,
    });
  });

  test("applies every restriction, with IPs normalised", async () => {
    const created = await harness.runJson<{ id: number; key: string }>(
      "token", "create", "--user", String(bobId), "--name", "restricted",
      "--models", "gpt-4o,llama", "--quota", "5.5", "--expires", "2099-12-31T23:00:00+01:00",
      "--ip", "1.2.3.4, 10.1.2.3/8,::1,2001:DB8:0::/32,::ffff:192.168.0.1,1.2.3.4", "--group", "batch", "--rpm", "60",
      "--tpm", "40000",
    );
    expect(await tokenRow(created.id)).toMatchObject({
      userId: bobId,
      allowedModels: ["gpt-4o", "llama"],
      quotaLimit: 5_500_000,
      expiresAt: new Date("2099-12-31T22:00:00Z"),
      allowedIps: ["1.2.3.4", "10.0.0.0/8", "::1", "2001:db8::/32", "192.168.0.1"],
      group: "batch",
      rpmLimit: 60,
      tpmLimit: 40_000,
    });
  });

  test("records the limits it sets as the ceilings up to which the owner may edit the token", async () => {
    const created = await createToken(
      "--models", "gpt-4o", "--quota", "5.5", "--expires", "2099-12-31T22:00:00Z", "--ip", "10.1.2.3/8", "--rpm", "60", "--tpm", "40000",
    );
    expect((await tokenRow(created.id)).grantedLimits).toEqual({
      quotaLimit: 5_500_000,
      expiresAt: "2099-12-31T22:00:00.000Z",
      allowedModels: ["gpt-4o"],
      allowedIps: ["10.0.0.0/8"],
      rpmLimit: 60,
      tpmLimit: 40_000,
    });
    const open = await createToken();
    expect((await tokenRow(open.id)).grantedLimits).toEqual({
      quotaLimit: null,
      expiresAt: null,
      allowedModels: [],
      allowedIps: [],
      rpmLimit: null,
      tpmLimit: null,
    });
  });

  test("a date alone expires at midnight UTC, and --quota 0 is a zero quota", async () => {
    const created = await createToken("--expires", "2099-02-28", "--quota", "0");
    expect(await tokenRow(created.id)).toMatchObject({ expiresAt: new Date("2099-02-28T00:00:00Z"), quotaLimit: 0 });
    const never = await createToken("--expires", "never", "--quota", "unlimited");
    expect(await tokenRow(never.id)).toMatchObject({ expiresAt: null, quotaLimit: null });
  });

  test("the human output shows the key once, with a warning", async () => {
    const result = await harness.run("token", "create", "--user", "alice", "--name", "human");
    expect(result.exitCode).toBe(0);
    const key = /^key: (sk-\S+)$/m.exec(result.stdout)?.[1] as string;
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(result.stdout.split(key)).toHaveLength(2);
    expect(result.stdout).toContain("WARNING: this key is shown only once");
    const [row] = await harness.context.db.select().from(tokens).where(eq(tokens.keyHash, hashTokenSecret(key)));
    expect(row?.name).toBe("human");
  });

  test("refuses bad arguments without writing anything", async () => {
    const base = ["token", "create", "--user", "alice", "--name", "bad"];
    await harness.expectRejected(["token", "create", "--name", "x"], "--user is required");
    await harness.expectRejected(["token", "create", "--user", "alice"], "--name is required");
    await harness.expectRejected(["token", "create", "--user", "nobody", "--name", "x"], 'unknown user "nobody"');
    await harness.expectRejected([...base, "--quota", "-1"], 'error: --quota must be a non-negative amount in USD or "unlimited"');
    await harness.expectRejected([...base, "--quota", "lots"], "--quota must be");
    await harness.expectRejected([...base, "--expires", "2001-01-01"], "--expires must be in the future");
    await harness.expectRejected([...base, "--expires", "2099-02-30"], "--expires must be an ISO 8601 date");
    await harness.expectRejected([...base, "--expires", "2099-01-01T24:00:00Z"], "--expires must be an ISO 8601 date");
    await harness.expectRejected([...base, "--expires", "next tuesday"], "--expires must be an ISO 8601 date");
    await harness.expectRejected([...base, "--expires", "January 1, 2099"], "--expires must be an ISO 8601 date");
    await harness.expectRejected([...base, "--ip", "1.2.3.999"], '--ip: "1.2.3.999" is not an IP address or CIDR range');
    await harness.expectRejected([...base, "--ip", "10.0.0.0/33"], "--ip");
    await harness.expectRejected([...base, "--ip", "2001:db8::/129"], "--ip");
    await harness.expectRejected([...base, "--ip", "0x7f.1"], "--ip");
    await harness.expectRejected([...base, "--ip", "1.2.3.4,"], "--ip");
    await harness.expectRejected([...base, "--rpm", "0"], "--rpm must be a positive integer");
    await harness.expectRejected([...base, "--rpm", "2.5"], "--rpm must be a positive integer");
    await harness.expectRejected([...base, "--rpm", "9999999999"], "--rpm must be a positive integer");
    await harness.expectRejected([...base, "--tpm", "0"], "--tpm must be a positive integer");
    await harness.expectRejected([...base, "--tpm", "1e3"], "--tpm must be a positive integer");
    await harness.expectRejected([...base, "--tpm", "none"], "--tpm must be a positive integer");
    await harness.expectRejected([...base, "--models", ","], "--models must be");
    await harness.expectRejected([...base, "--group", "a,b"], "--group must be a single group name");
  });
});

describe("token list and show", () => {
  test("list shows tokens without keys or hashes, optionally for one user", async () => {
    const created = await createToken();
    const all = await harness.run("token", "list", "--json");
    const listed = JSON.parse(all.stdout) as { id: number; userId: number; prefix: string }[];
    const rows = await harness.context.db.select().from(tokens);
    expect(listed.map((token) => token.id)).toEqual(rows.map((row) => row.id).sort((a, b) => a - b));
    for (const row of rows) expect(all.stdout).not.toContain(row.keyHash);
    expect(all.stdout).not.toContain(created.key);

    const bobs = await harness.runJson<{ userId: number }[]>("token", "list", "--user", "bob");
    expect(bobs.length).toBeGreaterThan(0);
    expect(bobs.every((token) => token.userId === bobId)).toBe(true);

    const human = await harness.run("token", "list", "--user", "alice");
    expect(human.stdout).toMatch(/^ID\s+NAME\s+USER\s+PREFIX\s+STATUS\s+USED\s+LIMIT\s+PERIOD\s+RESETS\s+EXPIRES$/m);
    expect(human.stdout).toContain(displayPrefix(created.key));
    expect(human.stdout).not.toContain("bob");
    await harness.expectRejected(["token", "list", "--user", "nobody"], 'unknown user "nobody"');
  });

  test("show reports quota limit, used and remaining in USD", async () => {
    const created = await createToken("--quota", "10", "--expires", "2099-06-01T12:00:00Z", "--ip", "10.0.0.0/8", "--rpm", "5", "--tpm", "2000");
    await harness.context.db.update(tokens).set({ usedQuota: 2_500_000 }).where(eq(tokens.id, created.id));
    const shown = await harness.runJson("token", "show", String(created.id));
    expect(shown).toEqual({
      id: created.id,
      name: "t",
      userId: aliceId,
      teamId: null,
      userName: "alice",
      prefix: displayPrefix(created.key),
      status: "enabled",
      expired: false,
      expiresAt: "2099-06-01T12:00:00.000Z",
      quotaLimit: "10.000000",
      quotaUsed: "2.500000",
      quotaRemaining: "7.500000",
      budget: {
        period: "none",
        timeZone: "UTC",
        limit: "10.000000",
        spent: "2.500000",
        remaining: "7.500000",
        periodStart: null,
        resetsAt: null,
        alertThresholds: null,
      },
      models: [],
      ips: ["10.0.0.0/8"],
      group: null,
      rpm: 5,
      tpm: 2000,
      cacheTtlSeconds: null,
      cacheScope: "user",
      lastUsedAt: null,
      rolledAt: null,
      previousPrefix: null,
      previousKeyExpiresAt: null,
      previousKeyLastUsedAt: null,
      createdAt: expect.any(String),
    });
    const human = await harness.run("token", "show", String(created.id));
    expect(human.stdout).toMatch(/^quota remaining:\s+\$7\.500000$/m);
    expect(human.stdout).toMatch(/^expires:\s+2099-06-01T12:00:00\.000Z$/m);
    expect(human.stdout).toMatch(/^tpm:\s+2000$/m);
    expect(human.stdout).not.toContain(created.key);
    expect(human.stdout).not.toContain(hashTokenSecret(created.key));
  });

  test("show flags an expired token and a used-up quota", async () => {
    const created = await createToken("--quota", "1");
    await harness.context.db
      .update(tokens)
      .set({ usedQuota: 1_200_000, expiresAt: new Date("2000-01-01T00:00:00Z") })
      .where(eq(tokens.id, created.id));
    const shown = await harness.runJson("token", "show", String(created.id));
    expect(shown).toMatchObject({ expired: true, quotaRemaining: "0.000000" });
    const human = await harness.run("token", "show", String(created.id));
    expect(human.stdout).toMatch(/^status:\s+enabled \(expired, quota used up\)$/m);
  });

  test("unknown or malformed ids are refused", async () => {
    await harness.expectRejected(["token", "show", "999999"], "unknown token id 999999");
    await harness.expectRejected(["token", "show", "0"], "token id must be a positive integer");
    await harness.expectRejected(["token", "show", "1", "2"], "too many arguments for token show");
  });
});

describe("token update", () => {
  test("sets and removes the per-minute limits, leaving the ones not named", async () => {
    const created = await createToken("--rpm", "10");
    const updated = await harness.runJson("token", "update", String(created.id), "--tpm", "5000");
    expect(updated).toMatchObject({ id: created.id, rpm: 10, tpm: 5000 });
    expect(await tokenRow(created.id)).toMatchObject({ rpmLimit: 10, tpmLimit: 5000 });
    const human = await harness.run("token", "update", String(created.id), "--rpm", "none", "--tpm", "7000");
    expect(human.stdout).toMatch(/^rpm:\s+no limit$/m);
    expect(human.stdout).toMatch(/^tpm:\s+7000$/m);
    expect(await tokenRow(created.id)).toMatchObject({ rpmLimit: null, tpmLimit: 7000 });
    await harness.runJson("token", "update", String(created.id), "--tpm", "NONE");
    expect(await tokenRow(created.id)).toMatchObject({ rpmLimit: null, tpmLimit: null });
  });

  test("moves the ceilings of the limits it names, and only those", async () => {
    const created = await createToken("--quota", "3", "--rpm", "10", "--tpm", "100");
    await harness.runJson("token", "update", String(created.id), "--rpm", "20");
    expect((await tokenRow(created.id)).grantedLimits).toMatchObject({ quotaLimit: 3_000_000, rpmLimit: 20, tpmLimit: 100 });
    await harness.runJson("token", "update", String(created.id), "--tpm", "none");
    expect((await tokenRow(created.id)).grantedLimits).toMatchObject({ quotaLimit: 3_000_000, rpmLimit: 20, tpmLimit: null });
  });

  test("refuses bad arguments without writing anything", async () => {
    const created = await createToken("--tpm", "100");
    const id = String(created.id);
    await harness.expectRejected(["token", "update", id], "token update needs --rpm, --tpm, --quota, --period, --time-zone, --alert-at, --cache-ttl, --cache-scope, --mcp-servers or --mcp-tools");
    await harness.expectRejected(["token", "update", id, "--tpm", "0"], "--tpm must be a positive integer");
    await harness.expectRejected(["token", "update", id, "--rpm", "-3"], "--rpm must be a positive integer");
    await harness.expectRejected(["token", "update", id, "--name", "x"], "unknown flag --name for token update");
    await harness.expectRejected(["token", "update", "999999", "--tpm", "5"], "unknown token id 999999");
    expect((await tokenRow(created.id)).tpmLimit).toBe(100);
  });
});

describe("token enable, disable and delete", () => {
  test("disable and enable change the status and the update time", async () => {
    const created = await createToken();
    const before = await tokenRow(created.id);
    expect(await harness.runJson("token", "disable", String(created.id))).toEqual({ id: created.id, name: "t", status: "disabled" });
    const disabled = await tokenRow(created.id);
    expect(disabled.status).toBe("disabled");
    expect(disabled.updatedAt.getTime()).toBeGreaterThan(before.updatedAt.getTime());
    const enabled = await harness.run("token", "enable", String(created.id));
    expect(enabled.stdout).toBe(`token ${created.id} (t) enabled\n`);
    expect((await tokenRow(created.id)).status).toBe("enabled");
  });

  test("a disable is recorded as an administrator's, so that the owner cannot undo it; enable clears it", async () => {
    const created = await createToken();
    await harness.runJson("token", "disable", String(created.id));
    expect((await tokenRow(created.id)).grantedLimits.disabled).toBe(true);
    await harness.runJson("token", "enable", String(created.id));
    expect((await tokenRow(created.id)).grantedLimits.disabled).toBe(false);
  });

  test("delete removes the token", async () => {
    const created = await createToken();
    expect(await harness.runJson("token", "delete", String(created.id))).toEqual({ id: created.id, name: "t", deleted: true });
    expect(await harness.context.db.select().from(tokens).where(eq(tokens.id, created.id))).toEqual([]);
    await harness.expectRejected(["token", "delete", String(created.id)], `unknown token id ${created.id}`);
    await harness.expectRejected(["token", "enable", String(created.id)], `unknown token id ${created.id}`);
    await harness.expectRejected(["token", "disable", "x"], "token id must be a positive integer");
  });
});
