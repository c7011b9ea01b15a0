import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { SettingsCache } from "@tollgate/gateway/settings-cache";
import { type Cli, cliOn, type ConsoleUnderTest, fieldRefusal, rejection, type SignedInUser, startConsole } from "./console-fixture";

// For tests and hooks of this file (the preload's setDefaultTimeout does not reach them): a fresh PGlite
// takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
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

/** Expects the CLI to refuse with exit code 2 and exactly `line` after `error: `. */
async function expectCliRefusal(argv: string[], line: string) {
  expect(await cli(...argv)).toEqual({ exitCode: 2, stdout: "", stderr: `error: ${line}\n` });
}

describe("one admin domain: the CLI and the console refuse the same input with the same message", () => {
  const token = ["token", "create", "--user", "alice", "--name", "t"];

  test("token limits: the console shows the message under the field, the CLI after the flag", async () => {
    const cases: [string[], Record<string, unknown>, string, string][] = [
      [["--rpm", "0"], { rpmLimit: 0 }, "rpmLimit", "Must be a positive integer"],
      [["--tpm", "2147483648"], { tpmLimit: 2_147_483_648 }, "tpmLimit", "Must be a positive integer up to 2147483647"],
      [["--quota", "-1"], { quotaLimit: "-1" }, "quotaLimit", 'Must be a non-negative amount in USD or "unlimited"'],
      [["--expires", "2001-01-01"], { expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt", "Must be in the future"],
      [["--expires", "soon"], { expiresAt: "soon" }, "expiresAt", 'Must be an ISO 8601 date such as 2030-01-31 or 2030-01-31T18:00:00Z, or "never"'],
      [["--group", "a,b"], { group: "a,b" }, "group", "Must be a single group name"],
      [["--models", "x".repeat(201)], { allowedModels: ["x".repeat(201)] }, "allowedModels", "Must be at most 200 characters"],
    ];
    const flags: Record<string, string> = { rpmLimit: "--rpm", tpmLimit: "--tpm", quotaLimit: "--quota", expiresAt: "--expires", group: "--group", allowedModels: "--models" };
    for (const [argv, fields, field, message] of cases) {
      expect(await fieldRefusal(() => admin.caller.tokens.create({ name: "t", userId: alice.id, ...fields }), field)).toEqual({ code: "BAD_REQUEST", messages: [message] });
      await expectCliRefusal([...token, ...argv], `${flags[field]} ${message[0]!.toLowerCase()}${message.slice(1)}`);
    }
  });

  test("a message that starts with the bad value follows the flag after a colon", async () => {
    const message = '"1.2.3.999" is not an IP address or CIDR range (v4 or v6)';
    expect(await fieldRefusal(() => admin.caller.tokens.create({ name: "t", allowedIps: ["1.2.3.999"] }), "allowedIps")).toEqual({ code: "BAD_REQUEST", messages: [message] });
    await expectCliRefusal([...token, "--ip", "1.2.3.999"], `--ip: ${message}`);
  });

  test("channels, prices and top-ups", async () => {
    const channel = { name: "c", baseUrl: "https://upstream.example/v1", apiKey: "sk-upstream-0123456789", models: ["m"] };
    const channelArgv = ["channel", "add", "--name", "c", "--base-url", "https://upstream.example/v1", "--key", "sk-upstream-0123456789", "--models", "m"];
    expect(await fieldRefusal(() => admin.caller.channels.create({ ...channel, modelMapping: { other: "x" } }), "modelMapping")).toEqual({
      code: "BAD_REQUEST",
      messages: ['Maps "other", which is not one of the channel\'s models'],
    });
    await expectCliRefusal([...channelArgv, "--map", "other=x"], `--map maps "other", which is not one of the channel's models`);
    expect(await fieldRefusal(() => admin.caller.channels.create({ ...channel, baseUrl: "https://user:pass@upstream.example" }), "baseUrl")).toEqual({
      code: "BAD_REQUEST",
      messages: ["Must not contain credentials (the key is given on its own)"],
    });
    await expectCliRefusal(
      ["channel", "add", "--name", "c", "--base-url", "https://user:pass@upstream.example", "--key", "k", "--models", "m"],
      "--base-url must not contain credentials (the key is given on its own)",
    );

    expect(await fieldRefusal(() => admin.caller.models.update({ model: "m", inputPrice: "1", outputPrice: "-2", cachedInputPrice: null }), "outputPrice")).toEqual({
      code: "BAD_REQUEST",
      messages: ["Must be a non-negative amount in USD (at most 6 decimals)"],
    });
    await expectCliRefusal(["model", "price", "--model", "m", "--input", "1", "--output", "-2"], "--output must be a non-negative amount in USD (at most 6 decimals)");

    expect(await fieldRefusal(() => admin.caller.users.topUp({ id: alice.id, amount: "0" }), "amount")).toEqual({
      code: "BAD_REQUEST",
      messages: ["Must be a positive amount in USD (at most 6 decimals)"],
    });
    await expectCliRefusal(["user", "topup", "alice", "--amount", "0"], "--amount must be a positive amount in USD (at most 6 decimals)");
  });

  test("refusals found in the database: an unknown owner, a taken name, an unknown id", async () => {
    expect(await fieldRefusal(() => admin.caller.tokens.create({ name: "t", userId: 999_999 }), "userId")).toEqual({ code: "BAD_REQUEST", messages: ['Unknown user "999999"'] });
    await expectCliRefusal(["token", "create", "--user", "999999", "--name", "t"], 'unknown user "999999"');

    expect(await fieldRefusal(() => admin.caller.users.create({ name: "alice" }), "name")).toEqual({ code: "BAD_REQUEST", messages: ['User "alice" already exists'] });
    await expectCliRefusal(["user", "create", "--name", "alice"], 'user "alice" already exists');

    const missing = await rejection(admin.caller.tokens.byId({ id: 999_999 }));
    expect({ code: missing.code, message: missing.message }).toEqual({ code: "NOT_FOUND", message: "Unknown token id 999999" });
    await expectCliRefusal(["token", "show", "999999"], "unknown token id 999999");
  });
});

describe("the request-log retention setting", () => {
  test("is 90 days until set, and what the console sets the CLI shows, the gateway's settings read, and back", async () => {
    expect(await admin.caller.logRetention.get()).toEqual({ days: 90 });
    expect((await cli("logs", "retention")).stdout).toBe("request log retention: 90 days\n");

    expect(await admin.caller.logRetention.update({ days: 30 })).toEqual({ days: 30 });
    expect(JSON.parse((await cli("logs", "retention", "--json")).stdout)).toEqual({ days: 30 });
    expect((await new SettingsCache(harness.database.handle.db).get()).requestLogRetentionDays).toBe(30);

    expect(await cli("logs", "retention", "--days", "0")).toEqual({ exitCode: 0, stdout: "request log retention: forever (0: no row is purged)\n", stderr: "" });
    expect(await admin.caller.logRetention.get()).toEqual({ days: 0 });
    expect((await new SettingsCache(harness.database.handle.db).get()).requestLogRetentionDays).toBe(0);
  });

  test("a retention that is not a whole number of days from 0 to 36500 is refused with one message on both", async () => {
    const message = "Must be a whole number of days from 0 (keep every row) to 36500";
    for (const days of [-1, 1.5, 36_501]) {
      const failure = await rejection(admin.caller.logRetention.update({ days }));
      expect({ code: failure.code, messages: failure.fieldErrors?.days }).toEqual({ code: "BAD_REQUEST", messages: [message] });
      expect(await cli("logs", "retention", "--days", String(days))).toEqual({ exitCode: 2, stdout: "", stderr: `error: --days ${message[0]!.toLowerCase()}${message.slice(1)}\n` });
    }
  });

  test("only an administrator reads or changes it in the console", async () => {
    expect((await rejection(alice.caller.logRetention.get())).code).toBe("FORBIDDEN");
    expect((await rejection(alice.caller.logRetention.update({ days: 1 }))).code).toBe("FORBIDDEN");
  });
});
