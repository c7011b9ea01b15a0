import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { requestLogs, tokens } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { type FakeMcpServer, startFakeMcpServer } from "../helpers/fake-mcp-server";
import { type ConsoleUnderTest, rejection, startConsole } from "./console-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine: a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const CREDENTIAL = "console-mcp-credential-98765";

let harness: ConsoleUnderTest;
let upstream: FakeMcpServer;

beforeAll(async () => {
  harness = await startConsole();
  upstream = await startFakeMcpServer({ name: "wiki" });
});

afterAll(async () => {
  await upstream?.close();
  await harness?.close();
});

describe("console: MCP servers", () => {
  test("an administrator adds a server (credential only masked), tests it to see its tools, sees its usage, and deletes it", async () => {
    const admin = await harness.signedInUser({ role: "admin" });
    const created = await admin.caller.mcp.create({ name: "wiki", url: upstream.url, credential: CREDENTIAL, pricePerCall: "0.001" });
    expect(created).toMatchObject({ name: "wiki", transport: "streamable-http", pricePerCall: 1000, credentialMasked: expect.any(String) });
    expect(JSON.stringify(await admin.caller.mcp.list())).not.toContain(CREDENTIAL);

    const tested = await admin.caller.mcp.test({ id: created.id });
    expect(tested.ok).toBe(true);
    expect(tested.tools.map((tool) => tool.name)).toEqual(["echo", "add", "drop_tables"]);
    expect(upstream.credentials).toContain(`Bearer ${CREDENTIAL}`);

    await harness.database.handle.db.insert(requestLogs).values([
      { requestId: "r1", endpoint: "mcp", model: "wiki__echo", status: 200, latencyMs: 10, cost: 1000, responseBytes: 40 },
      { requestId: "r2", endpoint: "mcp", model: "wiki__add", status: 502, errorCode: "mcp_server_unavailable", latencyMs: 30 },
    ]);
    const usage = await admin.caller.mcp.usage();
    expect(usage).toEqual([
      {
        server: "wiki",
        calls: 2,
        errors: 1,
        cost: 1000,
        responseBytes: 40,
        averageLatencyMs: 20,
        tools: expect.arrayContaining([
          { tool: "echo", calls: 1, errors: 0 },
          { tool: "add", calls: 1, errors: 1 },
        ]),
      },
    ]);

    await admin.caller.mcp.delete({ id: created.id });
    expect(await admin.caller.mcp.list()).toEqual([]);
  });

  test("an administrator sets a token's MCP access on the token form; a user can reach none of it", async () => {
    const admin = await harness.signedInUser({ role: "admin" });
    const user = await harness.signedInUser();
    const secret = generateTokenSecret();
    const [token] = await harness.database.handle.db
      .insert(tokens)
      .values({ userId: user.id, name: "agent", keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret) })
      .returning();
    expect(await admin.caller.mcp.tokenAccess({ id: token!.id })).toEqual({ id: token!.id, mcpServers: [], mcpTools: [] });
    await admin.caller.mcp.setTokenAccess({ id: token!.id, mcpServers: ["*"], mcpTools: ["wiki__echo"] });
    expect(await admin.caller.mcp.tokenAccess({ id: token!.id })).toEqual({ id: token!.id, mcpServers: ["*"], mcpTools: ["wiki__echo"] });
    const refused = await rejection(admin.caller.mcp.setTokenAccess({ id: token!.id, mcpTools: ["echo"] }));
    expect(refused.code).toBe("BAD_REQUEST");
    for (const call of [() => user.caller.mcp.list(), () => user.caller.mcp.setTokenAccess({ id: token!.id, mcpServers: ["*"] })]) {
      expect((await rejection(call())).code).toBe("FORBIDDEN");
    }
  });
});
