import { expect, test } from "bun:test";
import { join } from "node:path";

/**
 * Libraries only some deployments use are loaded by their first use (tracing at start when an OTLP endpoint
 * is set, the MCP SDK by the first MCP request or upstream connection, jose by the first Vertex AI exchange,
 * openid-client by the first SSO sign-in, AWS's signer by the first IAM-signed Bedrock request, the CLI's
 * commands by the first forwarded command): a server that never uses them never holds them. That is about
 * 500 modules and 18 MB of a gateway's resident memory at rest, and the same under load (bench/memory.ts).
 * Their behaviour once loaded is tested where each feature is (tracing, mcp-gateway, oidc-sign-in,
 * vertex-access-token, bedrock-channel, run-command).
 */
const OPTIONAL = ["@opentelemetry/", "@modelcontextprotocol/", "/jose/", "/openid-client/", "/oauth4webapi/", "@smithy/signature-v4", "@aws-crypto/", "/ajv/", "apps/cli/"];

/** The server's static graph, in a process of its own (this one has loaded everything other test files import). */
const SERVER_MODULES = ["serve-gateway.ts", "serve-console.ts", "open-storage.ts"]
  .map((file) => `await import(${JSON.stringify(join(import.meta.dir, "../apps/server/src", file))});`)
  .join("\n");

/** Runs `source` in a fresh Bun process and returns the paths of the modules it had loaded at the end. */
async function modulesLoadedBy(source: string): Promise<string[]> {
  const child = Bun.spawn([process.execPath, "-e", `${source}\nconsole.log(JSON.stringify(Object.keys(require.cache)));\nprocess.exit(0);`], {
    cwd: join(import.meta.dir, ".."),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output, errors, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect(errors).toBe("");
  expect(exitCode).toBe(0);
  return JSON.parse(output) as string[];
}

test("the write-behind thread loads the database client and the usage writer, not the admin domain's validators or the HTTP stack", async () => {
  // The thread's own entry, imported as the Worker imports it (its message listener is inert here).
  const loaded = await modulesLoadedBy(`await import(${JSON.stringify(join(import.meta.dir, "../apps/gateway/src/accounting/usage-writer-worker.ts"))});`);
  expect(loaded.some((path) => path.includes("apps/gateway/src/accounting/write-usage-batch.ts"))).toBe(true);
  expect(loaded.some((path) => path.includes("/postgres/"))).toBe(true);
  expect(loaded.filter((path) => ["/zod/", "/elysia/", "@sinclair/", "apps/gateway/src/app.ts", ...OPTIONAL].some((name) => path.includes(name)))).toEqual([]);
});

test("the all-in-one server's modules load none of the optional libraries until a feature uses them", async () => {
  const loaded = await modulesLoadedBy(SERVER_MODULES);
  // The probe saw the server's graph: its own modules and the libraries every request uses.
  expect(loaded.some((path) => path.includes("apps/gateway/src/pipeline/run-exchange.ts"))).toBe(true);
  expect(loaded.some((path) => path.includes("apps/console/src/create-console.ts"))).toBe(true);
  expect(loaded.some((path) => path.includes("/elysia/"))).toBe(true);
  const optional = loaded.filter((path) => OPTIONAL.some((name) => path.includes(name)));
  expect(optional).toEqual([]);
});
