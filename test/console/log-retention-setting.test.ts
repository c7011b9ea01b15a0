import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { runCommand } from "@tollgate/cli/run-command";
import { SettingsCache } from "@tollgate/gateway/settings-cache";
import { createSecretBox } from "@tollgate/shared";
import { TEST_SECRET } from "../helpers/gateway-fixture";
import { type ConsoleUnderTest, rejection, startConsole } from "./console-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

type SignedIn = Awaited<ReturnType<ConsoleUnderTest["signedInUser"]>>;

let harness: ConsoleUnderTest;
let admin: SignedIn;
let alice: SignedIn;
let cli: (...argv: string[]) => ReturnType<typeof runCommand>;

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  const context = { db: harness.database.handle.db, secretBox: await createSecretBox(TEST_SECRET) };
  cli = (...argv) => runCommand(argv, context);
});

afterAll(() => harness.close());

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
