import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FreshDatabase, freshDatabase, seedDataFolder, usePostgres } from "./helpers/fresh-database";
import { runCli, type ServerProcess, serverEnvironment, startServerProcess } from "./helpers/gateway-process";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

let database: FreshDatabase | null = null;
const folders: string[] = [];

beforeAll(async () => {
  if (usePostgres) database = await freshDatabase();
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await database?.drop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}, SETUP_TIMEOUT_MS);

function scratchDataDir(): string {
  const parent = mkdtempSync(join(tmpdir(), "tollgate-first-run-"));
  folders.push(parent);
  return join(parent, "data");
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill("SIGTERM");
  expect(await server.child.exited).toBe(0);
}

/** Every path under `folder` (not following links) whose mode lets group or others in. */
function openToOthers(folder: string): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(folder);
  return found;
}

function setup(origin: string, input: Record<string, string>) {
  return fetch(`${origin}/trpc/auth.setup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: input }),
  });
}

async function trpcErrorCode(answer: Response): Promise<string> {
  return ((await answer.json()) as { error: { json: { data: { code: string } } } }).error.json.data.code;
}

describe("a fresh install", () => {
  test(
    "prints a setup code and writes it owner-only to the data folder; first-run setup needs it, and it is spent once used",
    async () => {
      const dataDir = scratchDataDir();
      // A folder left open by an earlier version (or a loose umask): made owner-only at start.
      mkdirSync(dataDir, { recursive: true });
      chmodSync(dataDir, 0o755);
      if (!usePostgres) {
        writeFileSync(join(dataDir, "secret.key"), `${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}\n`);
        chmodSync(join(dataDir, "secret.key"), 0o644);
      }
      const env = serverEnvironment(dataDir, database);
      const server = await startServerProcess(env);
      try {
        const logged = /"setupCode":"([0-9A-Z-]+)"/.exec(server.output())?.[1];
        expect(logged).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){3}$/);
        const file = join(dataDir, "setup-code");
        expect(readFileSync(file, "utf8").trim()).toBe(logged!);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(statSync(dataDir).mode & 0o777).toBe(0o700);
        // The embedded database's files included: nothing in the folder is open to group or others.
        expect(openToOthers(dataDir)).toEqual([]);

        // The README's CLI quickstart: a user made by the CLI, no administrator yet.
        const created = runCli(env, "user", "create", "--name", "alice");
        expect(created.exitCode).toBe(0);

        const withoutCode = await setup(server.origin, { name: "stranger", password: "a-long-password" });
        expect(withoutCode.status).toBe(400);
        const wrongCode = await setup(server.origin, { setupCode: "AAAAA-BBBBB-CCCCC-DDDDD", name: "stranger", password: "a-long-password" });
        expect(wrongCode.status).toBe(403);
        expect(await trpcErrorCode(wrongCode)).toBe("FORBIDDEN");
        // From another address the server sees (a proxy's X-Forwarded-For is not believed): refused the same.
        const forwarded = await fetch(`${server.origin}/trpc/auth.setup`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": "127.0.0.1" },
          body: JSON.stringify({ json: { name: "stranger", password: "a-long-password" } }),
        });
        expect(forwarded.status).toBe(400);

        const accepted = await setup(server.origin, { setupCode: logged!, name: "root", password: "a-long-password" });
        expect(accepted.status).toBe(200);
        expect(accepted.headers.get("set-cookie")).toStartWith("tollgate_session=");
        expect(existsSync(file)).toBe(false);
        const again = await setup(server.origin, { setupCode: logged!, name: "second", password: "a-long-password" });
        expect(again.status).toBe(403);
      } finally {
        await stop(server);
      }
      // Started again with an administrator: no code printed, none written.
      const restarted = await startServerProcess(env);
      try {
        expect(restarted.output()).not.toContain("setupCode");
        expect(existsSync(join(dataDir, "setup-code"))).toBe(false);
      } finally {
        await stop(restarted);
      }
    },
    SETUP_TIMEOUT_MS,
  );
});

describe("the console alone (npm run start:console)", () => {
  test(
    "counts sign-in failures by the client's address behind a trusted proxy, not by the proxy's, and caps bodies at 1 MiB",
    async () => {
      // Not a first run: a folder with its database already made (the fresh install is the test above).
      const dataDir = scratchDataDir();
      await seedDataFolder(dataDir);
      const server = await startServerProcess(serverEnvironment(dataDir, database, { TRUSTED_PROXIES: "127.0.0.1" }), ["console"]);
      const login = (forwardedFor: string) =>
        fetch(`${server.origin}/trpc/auth.login`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
          body: JSON.stringify({ json: { name: "victim", password: "wrong-password" } }),
        });
      try {
        // Three free failures for (name, address), then a wait for that address only. The four are sent at once:
        // attempts are counted as they are admitted, so the fourth is refused whatever the order of the answers,
        // and however long a password check takes under load (one at a time, the 1 s wait after the third could
        // pass before the fourth arrived).
        const statuses = (await Promise.all(Array.from({ length: 4 }, () => login("198.51.100.1")))).map((answer) => answer.status);
        expect(statuses.sort()).toEqual([401, 401, 401, 429]);
        // Another client behind the same proxy is not kept out by the first one's failures.
        expect((await login("198.51.100.2")).status).toBe(401);
        // Its body cap is the console's 1 MiB, in tRPC's shape, not a read of whatever is sent.
        const tooLarge = await fetch(`${server.origin}/trpc/auth.login`, { method: "POST", headers: { "content-type": "application/json" }, body: new Uint8Array(2 * 1024 * 1024) });
        expect(tooLarge.status).toBe(413);
        expect(await trpcErrorCode(tooLarge)).toBe("PAYLOAD_TOO_LARGE");
      } finally {
        await stop(server);
      }
    },
    SETUP_TIMEOUT_MS,
  );
});
