import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { channels, users } from "@tollgate/db";
import { channelKeyBinding } from "@tollgate/shared";
import { eq } from "drizzle-orm";
import { seedDataFolder } from "../../../test/helpers/fresh-database";
import { type CliHarness, createCliHarness, DATABASE_SETUP_TIMEOUT_MS } from "./cli-test-harness";
import type { CommandResult } from "./command-context";
import { runCommand } from "./run-command";

const repositoryRoot = join(import.meta.dir, "..", "..", "..");
const entryPoint = join(repositoryRoot, "apps", "cli", "src", "index.ts");
const postgresConfigured = Boolean(process.env.DATABASE_URL);
/** A first run on an empty data folder includes PGlite's initdb, which takes seconds. */
const SUBPROCESS_TIMEOUT_MS = 60_000;

let harness: CliHarness;
const temporaryFolders: string[] = [];

beforeAll(async () => {
  harness = await createCliHarness();
}, DATABASE_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await harness.close();
  for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
});

function temporaryDataDir(): string {
  const folder = mkdtempSync(join(tmpdir(), "tollgate-cli-"));
  temporaryFolders.push(folder);
  return folder;
}

async function runEntryPoint(argv: string[], environment: Record<string, string>, standardInput?: string): Promise<CommandResult> {
  const child = Bun.spawn([process.execPath, entryPoint, ...argv], {
    cwd: repositoryRoot,
    // Empty values count as unset, so the parent's DATABASE_URL cannot switch the child to Postgres.
    env: { ...process.env, DATABASE_URL: "", TOLLGATE_SECRET: "", ...environment },
    stdin: standardInput === undefined ? "ignore" : new TextEncoder().encode(standardInput),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

async function exitedProcessId(): Promise<number> {
  const child = Bun.spawn([process.execPath, "--version"], { stdout: "ignore" });
  await child.exited;
  return child.pid;
}

describe("the admin entry point", () => {
  test(
    "runs on the embedded database when no server owns it",
    async () => {
      const dataDir = temporaryDataDir();
      const created = await runEntryPoint(["user", "create", "--name", "x", "--json"], { TOLLGATE_DATA_DIR: dataDir });
      expect(created.stderr).toBe("");
      expect(created.exitCode).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ name: "x", role: "user", balance: "0.000000" });
      expect(existsSync(join(dataDir, "secret.key"))).toBe(true);
      expect(existsSync(join(dataDir, "pgdata"))).toBe(true);

      // A server.json left by a server that is gone is ignored.
      const stalePid = await exitedProcessId();
      writeFileSync(join(dataDir, "server.json"), JSON.stringify({ pid: stalePid, port: 1, adminSecret: "gone" }));
      const listed = await runEntryPoint(["user", "list", "--json"], { TOLLGATE_DATA_DIR: dataDir });
      expect(listed.exitCode).toBe(0);
      expect(JSON.parse(listed.stdout).map((user: { name: string }) => user.name)).toEqual(["x"]);

      const rejected = await runEntryPoint(["token", "create", "--user", "x", "--name", "t", "--rpm", "0"], {
        TOLLGATE_DATA_DIR: dataDir,
      });
      expect(rejected).toEqual({ exitCode: 2, stdout: "", stderr: "error: --rpm must be a positive integer\n" });
    },
    SUBPROCESS_TIMEOUT_MS,
  );

  test(
    "--key-env takes the upstream key from the environment, and refuses an unset variable",
    async () => {
      // Not the folder's creation (the test above): a folder with its database already made.
      const dataDir = temporaryDataDir();
      await seedDataFolder(dataDir, true);
      const argv = ["channel", "add", "--name", "env-key", "--base-url", "https://api.example.com/v1", "--key-env", "TEST_UPSTREAM_KEY", "--models", "m1", "--json"];
      const missing = await runEntryPoint(argv, { TOLLGATE_DATA_DIR: dataDir, TEST_UPSTREAM_KEY: "" });
      expect(missing).toEqual({ exitCode: 2, stdout: "", stderr: "error: the environment variable TEST_UPSTREAM_KEY named by --key-env is not set\n" });
      const added = await runEntryPoint(argv, { TOLLGATE_DATA_DIR: dataDir, TEST_UPSTREAM_KEY: "sk-from-environment-0123456789" });
      expect(added.stderr).toBe("");
      expect(added.exitCode).toBe(0);
      expect(added.stdout).not.toContain("sk-from-environment-0123456789");
      const listed = await runEntryPoint(["channel", "list", "--json"], { TOLLGATE_DATA_DIR: dataDir });
      const [channel] = JSON.parse(listed.stdout) as Array<{ name: string; keyMasked: string }>;
      expect(channel?.name).toBe("env-key");
      expect(channel?.keyMasked.endsWith("6789")).toBe(true);
    },
    SUBPROCESS_TIMEOUT_MS,
  );

  test(
    "takes an administrator's password from --password-env or standard input, never from the command line it forwards",
    async () => {
      const adminSecret = "admin-secret-for-password-test";
      const received: string[][] = [];
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(request) {
          if (request.headers.get("authorization") !== `Bearer ${adminSecret}`) return new Response(null, { status: 401 });
          const { argv } = (await request.json()) as { argv: string[] };
          received.push(argv);
          return Response.json(await runCommand(argv, harness.context));
        },
      });
      const passwordOf = async (name: string) =>
        (await harness.context.db.select({ hash: users.passwordHash, role: users.role }).from(users).where(eq(users.name, name)))[0];
      try {
        const dataDir = temporaryDataDir();
        writeFileSync(join(dataDir, "server.json"), JSON.stringify({ pid: process.pid, port: server.port, adminSecret }));
        const environment = { TOLLGATE_DATA_DIR: dataDir, TEST_ADMIN_PASSWORD: "password-from-environment" };

        const fromEnvironment = await runEntryPoint(["user", "create", "--name", "env-admin", "--admin", "--password-env", "TEST_ADMIN_PASSWORD"], environment);
        expect(fromEnvironment.stderr).toBe("");
        expect(fromEnvironment.exitCode).toBe(0);
        const stored = await passwordOf("env-admin");
        expect(stored?.role).toBe("admin");
        expect(await Bun.password.verify("password-from-environment", stored!.hash!)).toBe(true);

        // Piped: the first line is the password (a second line is not part of it).
        const piped = await runEntryPoint(["user", "create", "--name", "piped-admin", "--admin"], environment, "password-from-stdin\nnot-this\n");
        expect(piped.stderr).toBe("");
        expect(piped.exitCode).toBe(0);
        expect(await Bun.password.verify("password-from-stdin", (await passwordOf("piped-admin"))!.hash!)).toBe(true);
        // A user who is no administrator asks for one with --password-prompt.
        const prompted = await runEntryPoint(["user", "create", "--name", "piped-user", "--password-prompt"], environment, "user-password-1");
        expect(prompted.exitCode).toBe(0);
        expect(await Bun.password.verify("user-password-1", (await passwordOf("piped-user"))!.hash!)).toBe(true);

        const none = await runEntryPoint(["user", "create", "--name", "no-password", "--admin"], environment, "");
        expect(none).toEqual({ exitCode: 2, stdout: "", stderr: "error: no password was given\n" });
        expect(await passwordOf("no-password")).toBeUndefined();

        // What reached the server carries the password as the command's own flag: the flags that named it are gone.
        expect(received.map((argv) => argv.slice(0, 4))).toEqual([
          ["user", "create", "--name", "env-admin"],
          ["user", "create", "--name", "piped-admin"],
          ["user", "create", "--name", "piped-user"],
        ]);
        for (const argv of received) expect(argv.some((item) => item.startsWith("--password-"))).toBe(false);
      } finally {
        await server.stop(true);
      }
    },
    SUBPROCESS_TIMEOUT_MS,
  );

  test(
    "sends the command to the running server that owns the embedded database",
    async () => {
      const adminSecret = "admin-secret-for-this-test";
      const received: string[][] = [];
      const server = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(request) {
          const url = new URL(request.url);
          if (request.method !== "POST" || url.pathname !== "/internal/admin-cli") return new Response(null, { status: 404 });
          if (request.headers.get("authorization") !== `Bearer ${adminSecret}`) return new Response(null, { status: 401 });
          const { argv } = (await request.json()) as { argv: string[] };
          received.push(argv);
          return Response.json(await runCommand(argv, harness.context));
        },
      });
      try {
        const dataDir = temporaryDataDir();
        const serverFile = join(dataDir, "server.json");
        writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port: server.port, adminSecret }));

        const created = await runEntryPoint(["user", "create", "--name", "forwarded", "--json"], { TOLLGATE_DATA_DIR: dataDir });
        expect(created.stderr).toBe("");
        expect(created.exitCode).toBe(0);
        expect(JSON.parse(created.stdout).name).toBe("forwarded");
        expect(received).toEqual([["user", "create", "--name", "forwarded", "--json"]]);
        expect(await harness.context.db.select().from(users).where(eq(users.name, "forwarded"))).toHaveLength(1);
        expect(existsSync(join(dataDir, "pgdata"))).toBe(false);

        const rejected = await runEntryPoint(["user", "topup", "nobody", "--amount", "1"], { TOLLGATE_DATA_DIR: dataDir });
        expect(rejected).toEqual({ exitCode: 2, stdout: "", stderr: 'error: unknown user "nobody"\n' });

        writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port: server.port, adminSecret: "wrong" }));
        const refused = await runEntryPoint(["user", "list"], { TOLLGATE_DATA_DIR: dataDir });
        expect(refused).toEqual({
          exitCode: 1,
          stdout: "",
          stderr: "error: the server refused the admin command (HTTP 401)\n",
        });
        expect(received).toHaveLength(2);
      } finally {
        server.stop(true);
      }
    },
    SUBPROCESS_TIMEOUT_MS,
  );

  test.skipIf(!postgresConfigured)(
    "runs on Postgres with the shared secret when DATABASE_URL is set",
    async () => {
      const databaseUrl = harness.database.url as string;
      const added = await runEntryPoint(
        ["channel", "add", "--name", "pg", "--base-url", "https://pg.example", "--key", "sk-from-a-subprocess", "--models", "m", "--json"],
        { DATABASE_URL: databaseUrl, TOLLGATE_SECRET: "a-test-secret-of-enough-length" },
      );
      expect(added.stderr).toBe("");
      expect(added.exitCode).toBe(0);
      const [row] = await harness.context.db.select().from(channels).where(eq(channels.id, JSON.parse(added.stdout).id));
      expect(await harness.context.secretBox.decrypt(row?.apiKeyEncrypted as string, channelKeyBinding(row!.id))).toBe("sk-from-a-subprocess");

      const withoutSecret = await runEntryPoint(["user", "list"], { DATABASE_URL: databaseUrl });
      expect(withoutSecret.exitCode).toBe(1);
      expect(withoutSecret.stdout).toBe("");
      expect(withoutSecret.stderr).toBe(
        "error: TOLLGATE_SECRET is required when DATABASE_URL is set (every instance must share it)\n",
      );
    },
    SUBPROCESS_TIMEOUT_MS,
  );
});
