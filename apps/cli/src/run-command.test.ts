import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";
import { describeUnexpectedError } from "@tollgate/admin";

let harness: CliHarness;

beforeAll(async () => {
  harness = await createCliHarness();
  await harness.runJson("user", "create", "--name", "alice");
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(() => harness.close());

describe("runCommand help", () => {
  test("no arguments, help and --help print the whole usage", async () => {
    for (const argv of [[], ["help"], ["--help"], ["-h"]]) {
      const result = await harness.run(...argv);
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toBe("");
      for (const line of ["user create", "channel add", "model price", "token create", "token show ID"]) {
        expect(result.stdout).toContain(line);
      }
    }
  });

  test("help for one resource prints only its section", async () => {
    for (const argv of [["help", "token"], ["token", "--help"], ["token", "create", "--user", "alice", "--help"]]) {
      const result = await harness.run(...argv);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain("token create --user NAME_OR_ID");
      expect(result.stdout).not.toContain("channel add");
    }
  });

  test("--help after -- is an argument, not a request for help", async () => {
    const result = await harness.run("token", "show", "--", "--help");
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe("error: token id must be a positive integer\n");
  });
});

describe("runCommand errors", () => {
  test("an unknown command fails with one line that says where the usage is, and prints nothing else", async () => {
    const before = await harness.snapshot();
    const result = await harness.run("frobnicate", "--name", "x");
    expect(result).toEqual({ exitCode: 2, stdout: "", stderr: 'error: unknown command "frobnicate" (run "help" for usage)\n' });
    expect(await harness.snapshot()).toEqual(before);
  });

  test("an unknown or missing subcommand fails with one line that names that resource's help, not its usage", async () => {
    const unknown = await harness.run("user", "delete", "alice");
    expect(unknown).toEqual({ exitCode: 2, stdout: "", stderr: 'error: unknown command "user delete" (run "help user" for usage)\n' });
    const missing = await harness.run("channel");
    expect(missing).toEqual({ exitCode: 2, stdout: "", stderr: 'error: missing channel command (run "help channel" for usage)\n' });
  });

  test("flag mistakes are named without repeating their values", async () => {
    await harness.expectRejected(["user", "list", "--secret=sk-do-not-echo"], 'error: unknown flag --secret for user list (run "help user" for usage)');
    await harness.expectRejected(["user", "list", "-x"], "unknown flag -x");
    await harness.expectRejected(["user", "list", "--json=yes"], "--json does not take a value");
    await harness.expectRejected(["user", "create", "--name"], "--name needs a value");
    await harness.expectRejected(["user", "create", "--name", "--json"], "--name needs a value");
    await harness.expectRejected(["user", "create", "--name", "a", "--name", "b"], "--name was given more than once");
    await harness.expectRejected(["user", "create", "--name", "  "], "--name must not be empty");
    const stderr = await harness.expectRejected(["user", "list", "--secret=sk-do-not-echo"], "unknown flag");
    expect(stderr).not.toContain("sk-do-not-echo");
  });

  test("a value starting with -- can be given inline", async () => {
    const result = await harness.run("user", "create", "--name=--dashing", "--json");
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).name).toBe("--dashing");
  });

  test("describing an unexpected error keeps the database's message and drops the query parameters", () => {
    const wrapped = new Error('Failed query: insert into "tokens" values ($1)\nparams: sk-secret', {
      cause: new Error('relation "tokens" does not exist'),
    });
    expect(describeUnexpectedError(wrapped)).toBe('relation "tokens" does not exist');
    expect(describeUnexpectedError("plain")).toBe("plain");
  });

  // Last in the file: it drops a table of this file's database.
  test("a database failure exits 1 with one line that names no key", async () => {
    await harness.database.handle.execute("drop table tokens");
    const result = await harness.run("token", "create", "--user", "alice", "--name", "doomed");
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: [^\n]*tokens[^\n]*\n$/);
    expect(result.stderr).not.toContain("sk-");
    expect(result.stderr).not.toContain("params");
  });
});
