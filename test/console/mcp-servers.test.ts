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

  test("a team admin sees the MCP usage of the team's keys only; a plain member and an outsider see none of it", async () => {
    const admin = await harness.signedInUser({ role: "admin" });
    const lead = await harness.signedInUser();
    const member = await harness.signedInUser();
    const outsider = await harness.signedInUser();
    const team = await admin.caller.teams.create({ name: "mcp-usage-team" });
    await admin.caller.teams.addMember({ teamId: team.id, userId: lead.id, role: "team_admin" });
    await admin.caller.teams.addMember({ teamId: team.id, userId: member.id });
    const { db } = harness.database.handle;
    const keyRow = (name: string, teamId: number | null) => {
      const secret = generateTokenSecret();
      return { userId: member.id, teamId, name, keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret) };
    };
    const [teamKey] = await db.insert(tokens).values(keyRow("team key", team.id)).returning({ id: tokens.id });
    const [personalKey] = await db.insert(tokens).values(keyRow("personal key", null)).returning({ id: tokens.id });
    await db.insert(requestLogs).values([
      { requestId: "t1", endpoint: "mcp", model: "kb__search", status: 200, latencyMs: 10, cost: 500, tokenId: teamKey!.id, userId: member.id },
      { requestId: "t2", endpoint: "mcp", model: "kb__search", status: 200, latencyMs: 30, cost: 700, tokenId: personalKey!.id, userId: member.id },
    ]);
    expect(await lead.caller.mcp.teamUsage({ id: team.id })).toEqual([
      { server: "kb", calls: 1, errors: 0, cost: 500, responseBytes: 0, averageLatencyMs: 10, tools: [{ tool: "search", calls: 1, errors: 0 }] },
    ]);
    expect((await admin.caller.mcp.teamUsage({ id: team.id }))[0]).toMatchObject({ server: "kb", calls: 1 });
    expect((await rejection(member.caller.mcp.teamUsage({ id: team.id }))).code).toBe("FORBIDDEN");
    expect((await rejection(outsider.caller.mcp.teamUsage({ id: team.id }))).code).toBe("NOT_FOUND");
    expect((await rejection(lead.caller.mcp.usage())).code).toBe("FORBIDDEN");
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
