import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_STDIO_MESSAGE_BYTES, probeMcpServer } from "./connect-mcp-server";

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

  test("a stdio server that writes without end and no newline is cut off at the cap and stopped: the probe fails at once, memory stays bounded", async () => {
    const pidFile = join(tmpdir(), `tollgate-spew-${crypto.randomUUID()}.pid`);
    // A child that notes its pid, then writes 1 MiB chunks without a newline, for ever.
    const spew = `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); const chunk = "x".repeat(1 << 20); const again = () => process.stdout.write(chunk, again); again();`;
    const rssBefore = process.memoryUsage().rss;
    const cpuBefore = process.cpuUsage();
    const result = await probeMcpServer(
      { name: "spew", transport: "stdio", url: null, command: [process.execPath, "-e", spew], credentialHeader: null, credential: null },
      { stdioEnabled: true },
      20_000,
    );
    const cpu = process.cpuUsage(cpuBefore);
    expect(result.ok).toBe(false);
    expect(result.error).toContain(`limit of ${MAX_STDIO_MESSAGE_BYTES} bytes`);
    // Cut off at the cap (10 MiB), then nothing more read: the SDK's own transport spent about 2.4 s of CPU and
    // 200 MB on this (its whole buffer copied per chunk, then the output read on until the child went).
    expect(result.latencyMs).toBeLessThan(1_500);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(1_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(4 * MAX_STDIO_MESSAGE_BYTES);
    // The child is killed.
    const pid = Number(readFileSync(pidFile, "utf8"));
    rmSync(pidFile, { force: true });
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let waited = 0; waited < 6_000 && alive(); waited += 50) await Bun.sleep(50);
    expect(alive()).toBe(false);
  }, 30_000);

  test("a stdio server's messages are read whole however its output is cut, and a stray line that is not JSON-RPC is skipped", async () => {
    // initialize's answer, written a few bytes at a time after a log line, then the tool list in one write.
    const server = `
      const lines = require("node:readline").createInterface({ input: process.stdin });
      const send = async (message) => {
        const text = JSON.stringify(message) + "\\n";
        for (let at = 0; at < text.length; at += 7) { process.stdout.write(text.slice(at, at + 7)); await new Promise((r) => setTimeout(r, 1)); }
      };
      process.stdout.write("starting up\\n");
      lines.on("line", async (line) => {
        const request = JSON.parse(line);
        if (request.method === "initialize") await send({ jsonrpc: "2.0", id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "chunky", version: "1.0.0" } } });
        if (request.method === "tools/list") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } }) + "\\n");
      });`;
    const result = await probeMcpServer(
      { name: "chunky", transport: "stdio", url: null, command: [process.execPath, "-e", server], credentialHeader: null, credential: null },
      { stdioEnabled: true },
    );
    expect(result).toMatchObject({ ok: true, serverInfo: { name: "chunky", version: "1.0.0" }, tools: [{ name: "echo", description: null }] });
  }, 30_000);

  test("a stdio server is refused where stdio is disabled, without running anything", async () => {
    const result = await probeMcpServer({ name: "local", transport: "stdio", url: null, command: ["/bin/false"], credentialHeader: null, credential: null }, { stdioEnabled: false });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("MCP_STDIO_ENABLED") });
  });
});
