import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCli, type ServerProcess, serverFilesForBlock, startServerProcess } from "./helpers/gateway-process";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

const PUBLIC_URL = "https://llm.example.com";
const PASSWORD = "correct-horse-battery-staple";

/** The file's data folder (embedded; each test's server has stopped before the next starts) or database. */
const { environment } = serverFilesForBlock("tollgate-modes-");

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill("SIGTERM");
  expect(await server.child.exited).toBe(0);
}

/** Signs in to the console as `name` and reads the Quick start panel's base address. */
async function quickStartBaseUrl(origin: string, name: string): Promise<string> {
  const login = await fetch(`${origin}/trpc/auth.login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: { name, password: PASSWORD } }),
  });
  expect(login.status).toBe(200);
  const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
  const info = await fetch(`${origin}/trpc/quickStart.info`, { headers: { cookie } });
  expect(info.status).toBe(200);
  return ((await info.json()) as { result: { data: { json: { baseUrl: string } } } }).result.data.json.baseUrl;
}

function createAdmin(env: Record<string, string | undefined>, name: string): void {
  const created = runCli(env, "user", "create", "--name", name, "--admin", "--password", PASSWORD);
  expect(created.stderr).toBe("");
  expect(created.exitCode).toBe(0);
}

describe("the server's modes", () => {
  test("all-in-one (npm start) serves /v1 and the console on one port, with TOLLGATE_PUBLIC_URL in the Quick start", async () => {
    const env = environment({ TOLLGATE_PUBLIC_URL: PUBLIC_URL });
    const server = await startServerProcess(env);
    try {
      expect((await fetch(`${server.origin}/v1/models`)).status).toBe(401);
      const page = await fetch(`${server.origin}/`, { headers: { accept: "text/html" } });
      expect(page.headers.get("content-type")).toStartWith("text/html");
      // Embedded: forwarded to the running server through the admin bridge.
      createAdmin(env, "admin-all");
      expect(await quickStartBaseUrl(server.origin, "admin-all")).toBe(`${PUBLIC_URL}/v1`);
    } finally {
      await stop(server);
    }
  }, SETUP_TIMEOUT_MS);

  test("gateway mode (npm run start:gateway) serves /v1 and no console, and still takes the CLI's commands", async () => {
    const env = environment();
    const server = await startServerProcess(env, ["gateway"]);
    try {
      expect((await fetch(`${server.origin}/v1/models`)).status).toBe(401);
      for (const path of ["/", "/trpc/auth.setupStatus"]) {
        const answer = await fetch(`${server.origin}${path}`, { headers: { accept: "text/html" } });
        expect(answer.status).toBe(404);
        expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("unknown_url");
      }
      createAdmin(env, "admin-gateway");
    } finally {
      await stop(server);
    }
  }, SETUP_TIMEOUT_MS);

  test("console mode (npm run start:console) serves the console alone, with TOLLGATE_PUBLIC_URL, and sends /v1 to the gateway", async () => {
    const env = environment({ TOLLGATE_PUBLIC_URL: PUBLIC_URL });
    // The console alone has no admin bridge: the CLI opens the folder itself, before the console holds it.
    createAdmin(env, "admin-console");
    const server = await startServerProcess(env, ["console"]);
    try {
      expect(server.output()).toContain('"message":"tollgate console listening"');
      const api = await fetch(`${server.origin}/v1/models`);
      expect(api.status).toBe(404);
      expect(((await api.json()) as { error: { message: string } }).error.message).toContain("the API is served by the gateway");
      expect(await quickStartBaseUrl(server.origin, "admin-console")).toBe(`${PUBLIC_URL}/v1`);
    } finally {
      await stop(server);
    }
  }, SETUP_TIMEOUT_MS);

  test("an unknown mode is refused with the usage, before anything is opened", () => {
    const env = environment();
    const result = Bun.spawnSync([process.execPath, join(import.meta.dir, "../apps/server/src/index.ts"), "--gateway-only"], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain("usage: bun apps/server/src/index.ts [gateway | console]");
  });
});
