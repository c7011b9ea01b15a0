import { afterAll, describe, expect, test } from "bun:test";
import { probeMcpServer } from "./connect-mcp-server";

const reached: string[] = [];
// Where a redirect points: it must never be called, least of all with the credential.
const elsewhere = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    reached.push(request.headers.get("authorization") ?? "(none)");
    return new Response("{}", { headers: { "content-type": "application/json" } });
  },
});
const redirecting = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${elsewhere.port}/mcp` } }),
});

afterAll(async () => {
  await redirecting.stop(true);
  await elsewhere.stop(true);
});

describe("upstream MCP connections", () => {
  test("a redirect is never followed: the probe fails and the credential never reaches the host it names", async () => {
    const result = await probeMcpServer(
      { name: "moved", transport: "streamable-http", url: `http://127.0.0.1:${redirecting.port}/mcp`, command: null, credentialHeader: null, credential: "secret-credential" },
      { stdioEnabled: false },
    );
    expect(result.ok).toBe(false);
    expect(result.error).toContain("redirect");
    expect(result.error).not.toContain("secret-credential");
    expect(reached).toEqual([]);
  });

  test("a stdio server is refused where stdio is disabled, without running anything", async () => {
    const result = await probeMcpServer({ name: "local", transport: "stdio", url: null, command: ["/bin/false"], credentialHeader: null, credential: null }, { stdioEnabled: false });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("MCP_STDIO_ENABLED") });
  });
});
