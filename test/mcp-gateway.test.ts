import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { cliOperator, createMcpServer, createMcpServerSchema, deleteMcpServer, setTokenMcpAccess, updateMcpServer, updateMcpServerSchema } from "../packages/admin/src/index";
import { mcpServers, teams } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { type FakeMcpServer, startFakeMcpServer, startFakeSseMcpServer } from "./helpers/fake-mcp-server";
import { usePostgres } from "./helpers/fresh-database";
import { type StackWith, startGateway, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { startTwoGateways } from "./helpers/two-gateways";

type Fakes = { alpha: FakeMcpServer; beta: FakeMcpServer; priced: FakeMcpServer };
let stack: StackWith<Fakes>;
let base: string;
/** The team the `teamonly` server is opened to. */
let teamId: number;

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    alpha: await keep(startFakeMcpServer({ name: "alpha" })),
    beta: await keep(startFakeMcpServer({ name: "beta" })),
    priced: await keep(startFakeMcpServer({ name: "priced" })),
  }));
  base = (await stack.gateway.listen()).replace(/\/v1$/, "");
  const { db } = stack.database.handle;
  const register = (input: Record<string, unknown>) => createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse(input));
  await register({ name: "alpha", url: stack.fakes.alpha.url, credential: "alpha-upstream-secret" });
  await register({ name: "beta", url: stack.fakes.beta.url });
  await register({ name: "priced", url: stack.fakes.priced.url, pricePerCall: "0.002", groups: ["vip"] });
  const [team] = await db.insert(teams).values({ name: "mcp-team" }).returning({ id: teams.id });
  teamId = team!.id;
  await register({ name: "teamonly", url: stack.fakes.beta.url, teams: [teamId] });
}, SETUP_TIMEOUT_MS);

afterAll(() => stack?.stop(), SETUP_TIMEOUT_MS);

/** A token with MCP access as `setTokenMcpAccess` grants it; `rpmLimit` on the token row itself. */
async function mcpToken(access: { mcpServers: string[]; mcpTools?: string[] }, options: { rpmLimit?: number; group?: string; teamId?: number } = {}) {
  const token = await stack.seed.token({ userId: stack.userId, rpmLimit: options.rpmLimit ?? null, group: options.group ?? null, teamId: options.teamId ?? null });
  await setTokenMcpAccess(stack.database.handle.db, cliOperator, { id: token.row.id, mcpServers: access.mcpServers, mcpTools: access.mcpTools ?? [] });
  // The token was never used: its cache holds nothing to evict, the first call loads the row with its access.
  return token;
}

/** The SDK's own client, connected to the gateway with the key. */
async function connect(secret: string, path = "/mcp", at = base): Promise<Client> {
  const client = new Client({ name: "tollgate-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${at}${path}`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  return client;
}

async function directClient(server: FakeMcpServer): Promise<Client> {
  const client = new Client({ name: "direct", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  return client;
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

describe("MCP gateway", () => {
  test("a client initializes and lists the tools of every server its key may use, each named server__tool", async () => {
    const { secret } = await mcpToken({ mcpServers: ["*"] });
    const client = await connect(secret);
    try {
      expect(client.getServerVersion()?.name).toBe("tollgate");
      expect(await toolNames(client)).toEqual(["alpha__add", "alpha__drop_tables", "alpha__echo", "beta__add", "beta__drop_tables", "beta__echo"]);
    } finally {
      await client.close();
    }
  });

  test("a server open to other groups only stays out of the list, and is there for a key of its group", async () => {
    const { secret } = await mcpToken({ mcpServers: ["*"] }, { group: "vip" });
    const client = await connect(secret);
    try {
      expect(await toolNames(client)).toContain("priced__echo");
    } finally {
      await client.close();
    }
  });

  test("a server open to a team lists its tools to that team's key, not to a personal key of the same user, and calls it for the team key only", async () => {
    const teamKey = await mcpToken({ mcpServers: ["*"] }, { teamId });
    const personalKey = await mcpToken({ mcpServers: ["*"] });
    const teamClient = await connect(teamKey.secret);
    const personalClient = await connect(personalKey.secret);
    try {
      expect(await toolNames(teamClient)).toContain("teamonly__echo");
      expect(await toolNames(personalClient)).not.toContain("teamonly__echo");
      const answered = await teamClient.callTool({ name: "teamonly__echo", arguments: { text: "team call" } });
      expect(answered.content).toEqual([{ type: "text", text: "beta: team call" }]);
      const callsBefore = stack.fakes.beta.calls.length;
      const refused = await personalClient.callTool({ name: "teamonly__echo", arguments: { text: "personal call" } }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect(stack.fakes.beta.calls.length).toBe(callsBefore);
    } finally {
      await teamClient.close();
      await personalClient.close();
    }
  });

  test("registering a server for a team that does not exist is refused, naming the field", async () => {
    const refused = await createMcpServer(stack.database.handle.db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "ghost-team", url: stack.fakes.beta.url, teams: [teamId + 1000] })).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: "invalid_input", field: "teams" });
    const [server] = await stack.database.handle.db.select().from(mcpServers).where(eq(mcpServers.name, "teamonly"));
    const updated = await updateMcpServer(stack.database.handle.db, cliOperator, stack.gateway.secretBox, updateMcpServerSchema.parse({ id: server!.id, teams: [teamId + 1000] })).catch((error: unknown) => error);
    expect(updated).toMatchObject({ code: "invalid_input", field: "teams" });
    expect(await stack.database.handle.db.select().from(mcpServers).where(eq(mcpServers.name, "ghost-team"))).toEqual([]);
  });

  test("a key's server and tool allow-lists narrow the list", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha", "beta"], mcpTools: ["alpha__echo", "alpha__add", "beta__*"] });
    const client = await connect(secret);
    try {
      expect(await toolNames(client)).toEqual(["alpha__add", "alpha__echo", "beta__add", "beta__drop_tables", "beta__echo"]);
    } finally {
      await client.close();
    }
  });

  test("a call through the gateway answers exactly what the server answers directly, sent with the server's credential", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] });
    const client = await connect(secret);
    const direct = await directClient(stack.fakes.alpha);
    try {
      const through = await client.callTool({ name: "alpha__echo", arguments: { text: "hi there" } });
      const straight = await direct.callTool({ name: "echo", arguments: { text: "hi there" } });
      expect(through).toEqual(straight);
      expect(through.content).toEqual([{ type: "text", text: "alpha: hi there" }]);
      expect(stack.fakes.alpha.credentials).toContain("Bearer alpha-upstream-secret");
    } finally {
      await client.close();
      await direct.close();
    }
  });

  test("a tool the key may not call is refused with a JSON-RPC error and never reaches the server", async () => {
    const { secret, row } = await mcpToken({ mcpServers: ["alpha"], mcpTools: ["alpha__echo"] });
    const client = await connect(secret);
    try {
      const callsBefore = stack.fakes.alpha.calls.length;
      const refused = await client.callTool({ name: "alpha__drop_tables", arguments: {} }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).message).toContain("may not call the tool alpha__drop_tables");
      const otherServer = await client.callTool({ name: "beta__echo", arguments: { text: "x" } }).catch((error: unknown) => error);
      expect(otherServer).toBeInstanceOf(McpError);
      expect(stack.fakes.alpha.calls.length).toBe(callsBefore);
      expect(stack.fakes.beta.calls.some((call) => call.args.text === "x")).toBe(false);
      const logs = await stack.logsOf(row.id);
      expect(logs.map((log) => [log.endpoint, log.model, log.status, log.errorCode])).toEqual([["mcp", "alpha__drop_tables", 403, "tool_not_allowed"]]);
    } finally {
      await client.close();
    }
  });

  test("a key without MCP access gets 403, and a request without a key 401", async () => {
    const { secret } = await stack.seed.token({ userId: stack.userId });
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(initialize) });
    const forbidden = await post({ authorization: `Bearer ${secret}` });
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.code).toBe("mcp_not_allowed");
    expect((await post({})).status).toBe(401);
  });

  test("taking a key's MCP access away refuses its next request, though the key is cached (NOTIFY evicts it)", async () => {
    const { secret, row } = await mcpToken({ mcpServers: ["alpha"] });
    const client = await connect(secret);
    try {
      expect(await toolNames(client)).toContain("alpha__echo");
      await setTokenMcpAccess(stack.database.handle.db, cliOperator, { id: row.id, mcpServers: [] });
      await waitFor(async () => (await client.listTools().catch((error: unknown) => error)) instanceof Error, "the key refused");
      const refused = await client.listTools().catch((error: unknown) => error);
      expect(String(refused)).toContain("mcp_not_allowed");
    } finally {
      await client.close().catch(() => undefined);
    }
  });

  test("/mcp/{server} exposes one server alone, under its own tool names", async () => {
    const { secret } = await mcpToken({ mcpServers: ["*"] });
    const client = await connect(secret, "/mcp/beta");
    try {
      expect(await toolNames(client)).toEqual(["add", "drop_tables", "echo"]);
      expect((await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).content).toEqual([{ type: "text", text: "5" }]);
    } finally {
      await client.close();
    }
    const { secret: alphaOnly } = await mcpToken({ mcpServers: ["alpha"] });
    const refused = await connect(alphaOnly, "/mcp/beta").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
  });

  test("each tools/call counts against the key's requests per minute", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] }, { rpmLimit: 2 });
    const client = await connect(secret);
    try {
      // Initialize and list are not tool calls: they count nothing.
      await client.listTools();
      await client.callTool({ name: "alpha__add", arguments: { a: 1, b: 1 } });
      await client.callTool({ name: "alpha__add", arguments: { a: 1, b: 2 } });
      const callsBefore = stack.fakes.alpha.calls.length;
      const limited = await client.callTool({ name: "alpha__add", arguments: { a: 1, b: 3 } }).catch((error: unknown) => error);
      expect(limited).toBeInstanceOf(McpError);
      expect((limited as McpError).message).toContain("Rate limit reached");
      expect((limited as McpError).data).toEqual({ status: 429, code: "rate_limit_exceeded" });
      expect(stack.fakes.alpha.calls.length).toBe(callsBefore);
    } finally {
      await client.close();
    }
  });

  test("every call leaves a request-log row with the key, its owner, server__tool, status, bytes and price", async () => {
    const { secret, row } = await mcpToken({ mcpServers: ["*"] }, { group: "vip" });
    const client = await connect(secret);
    try {
      const result = await client.callTool({ name: "priced__echo", arguments: { text: "bill me" } });
      await client.callTool({ name: "alpha__echo", arguments: { text: "free" } });
      const logs = await stack.logsOf(row.id);
      expect(logs.map((log) => ({ endpoint: log.endpoint, model: log.model, upstream: log.upstreamModel, status: log.status, cost: log.cost, unit: log.billedUnit }))).toEqual([
        { endpoint: "mcp", model: "priced__echo", upstream: "echo", status: 200, cost: 2000, unit: "request" },
        { endpoint: "mcp", model: "alpha__echo", upstream: "echo", status: 200, cost: 0, unit: "token" },
      ]);
      expect(logs[0]!.userId).toBe(stack.userId);
      expect(logs[0]!.responseBytes).toBe(new TextEncoder().encode(JSON.stringify(result)).byteLength);
      expect(logs[0]!.latencyMs).toBeGreaterThanOrEqual(0);
      const metrics = await fetch(`${base}/metrics`);
      expect(await metrics.text()).toContain('endpoint="mcp",model="priced__echo"');
    } finally {
      await client.close();
    }
  });

  test("a priced call the key's quota cannot cover is refused with insufficient_quota and never reaches the server", async () => {
    const token = await stack.seed.token({ userId: stack.userId, group: "vip", quotaLimit: 1_000 });
    await setTokenMcpAccess(stack.database.handle.db, cliOperator, { id: token.row.id, mcpServers: ["priced"], mcpTools: [] });
    const client = await connect(token.secret);
    try {
      const callsBefore = stack.fakes.priced.calls.length;
      const refused = await client.callTool({ name: "priced__echo", arguments: { text: "too dear" } }).catch((error: unknown) => error);
      expect((refused as McpError).data).toEqual({ status: 429, code: "insufficient_quota" });
      expect(stack.fakes.priced.calls.length).toBe(callsBefore);
    } finally {
      await client.close();
    }
  });

  test("prompts and resources of every server are aggregated, and read through the server that has them", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha", "beta"] });
    const client = await connect(secret);
    try {
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(["alpha__greet", "beta__greet"]);
      const prompt = await client.getPrompt({ name: "beta__greet", arguments: { who: "Ada" } });
      expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Hello Ada from beta" });
      const resources = (await client.listResources()).resources;
      expect(resources.map((resource) => resource.uri).sort()).toEqual(["memo://alpha/readme", "memo://beta/readme"]);
      expect((await client.readResource({ uri: "memo://beta/readme" })).contents[0]).toMatchObject({ text: "readme of beta" });
    } finally {
      await client.close();
    }
  });

  test("an upstream's notifications/tools/list_changed reaches the client, and the new tool is listed", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] });
    const client = await connect(secret);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    try {
      await client.listTools();
      await stack.fakes.alpha.addTool({
        tool: { name: "fresh_tool", description: "new", inputSchema: { type: "object" } },
        call: () => ({ content: [{ type: "text", text: "fresh" }] }),
      });
      // The notification travels on streams the SDK's clients open after initialize (the gateway's to the
      // server, the client's to the gateway): told again until it arrives.
      await waitFor(async () => {
        await stack.fakes.alpha.announceToolsChanged();
        return changes > 0;
      }, "tools/list_changed at the client");
      await waitFor(async () => (await toolNames(client)).some((name) => name === "alpha__fresh_tool"), "the new tool listed");
    } finally {
      await client.close();
    }
  });
});

describe("MCP gateway: an upstream on the older HTTP+SSE transport", () => {
  test("is listed and called like any other", async () => {
    const legacy = await startFakeSseMcpServer("legacy");
    try {
      await createMcpServer(stack.database.handle.db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "legacy", transport: "sse", url: legacy.url }));
      const { secret } = await mcpToken({ mcpServers: ["legacy"] });
      const client = await connect(secret);
      try {
        await waitFor(async () => (await toolNames(client)).includes("legacy__echo"), "the SSE server's tools listed");
        expect((await client.callTool({ name: "legacy__echo", arguments: { text: "old school" } })).content).toEqual([{ type: "text", text: "legacy: old school" }]);
        expect(legacy.calls).toEqual([{ tool: "echo", args: { text: "old school" } }]);
      } finally {
        await client.close();
      }
    } finally {
      await deleteMcpServer(stack.database.handle.db, cliOperator, "legacy");
      await legacy.close();
    }
  });
});

describe("MCP gateway: Streamable HTTP sessions", () => {
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const post = (at: string, secret: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${at}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body),
    });
  const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

  test("initialize answers in SSE for a client that accepts it, with a session id that a later request carries", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] });
    const opened = await post(base, secret, initialize);
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toStartWith("text/event-stream");
    const sessionId = opened.headers.get("mcp-session-id");
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await opened.text()).toContain('"serverInfo":{"name":"tollgate"');
    const listed = await post(base, secret, listTools, { "mcp-session-id": sessionId!, "mcp-protocol-version": "2025-06-18" });
    expect(await listed.text()).toContain("alpha__echo");
  });

  test("a message is read under /v1's body limits: malformed or too deep is a parse error, too large is 413", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] });
    const raw = (body: string) =>
      fetch(`${base}/mcp`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
    const malformed = await raw("{not json");
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe(-32700);
    const deep = await raw(`${"[".repeat(200)}${"]".repeat(200)}`);
    expect(deep.status).toBe(400);
    expect((await deep.json()).error.message).toContain("nests deeper");
    const large = await raw(JSON.stringify({ ...initialize, padding: "x".repeat(16 * 1024 * 1024) }));
    expect(large.status).toBe(413);
  });

  test("another key presenting a session's id is answered as for an unknown session", async () => {
    const { secret } = await mcpToken({ mcpServers: ["alpha"] });
    const { secret: other } = await mcpToken({ mcpServers: ["alpha"] });
    const sessionId = (await post(base, secret, initialize)).headers.get("mcp-session-id")!;
    const stolen = await post(base, other, listTools, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).error.message).toBe("Session not found");
  });

  test("a session opened on one instance carries on at another for the same key (no session affinity needed)", async () => {
    const second = await startGateway(stack.database.handle);
    try {
      const secondBase = (await second.listen()).replace(/\/v1$/, "");
      const { secret } = await mcpToken({ mcpServers: ["alpha"] });
      const client = await connect(secret);
      try {
        const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
        const call = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "alpha__echo", arguments: { text: "elsewhere" } } };
        const answered = await post(secondBase, secret, call, { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" });
        expect(answered.status).toBe(200);
        expect(await answered.text()).toContain("alpha: elsewhere");
        expect((await post(secondBase, secret, listTools, { "mcp-session-id": sessionId })).status).toBe(200);
      } finally {
        await client.close();
      }
    } finally {
      await second.stop();
    }
  });
});

describe("MCP gateway: a failing server", () => {
  test("is cooled down: its tools leave the list, and calls are refused without reaching it until it is edited", async () => {
    const failing = await startFakeMcpServer({ name: "flaky" });
    try {
      const { db } = stack.database.handle;
      const created = await createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "flaky", url: failing.url }));
      const { secret, row } = await mcpToken({ mcpServers: ["flaky"] });
      const client = await connect(secret);
      try {
        await waitFor(async () => (await toolNames(client)).includes("flaky__echo"), "flaky listed");
        failing.setFailing(true);
        // As a channel: it cools down after CHANNEL_FAILURE_THRESHOLD (3) failures within the window.
        for (let attempt = 0; attempt < 3; attempt++) {
          const failed = await client.callTool({ name: "flaky__echo", arguments: { text: "a" } }).catch((error: unknown) => error);
          expect(failed).toBeInstanceOf(McpError);
          expect((failed as McpError).data).toEqual({ status: 502, code: "mcp_server_unavailable" });
          expect((failed as McpError).message.endsWith("it is cooling down.")).toBe(attempt === 2);
        }
        // Written behind to the row, for the other instances.
        const stored = await waitFor(async () => (await db.select().from(mcpServers).where(eq(mcpServers.id, created.id)))[0]?.cooldownUntil, "the cool-down on the row");
        expect(stored.getTime()).toBeGreaterThan(Date.now());
        const requestsAfterFailure = failing.requests;
        failing.setFailing(false);
        const refused = await client.callTool({ name: "flaky__echo", arguments: { text: "b" } }).catch((error: unknown) => error);
        expect((refused as McpError).data).toEqual({ status: 503, code: "mcp_server_cooling_down" });
        expect(await toolNames(client)).toEqual([]);
        expect(failing.requests).toBe(requestsAfterFailure);
        const statuses = (await stack.logsOf(row.id)).map((log) => [log.status, log.errorCode]);
        expect(statuses).toEqual([
          [502, "mcp_server_unavailable"],
          [502, "mcp_server_unavailable"],
          [502, "mcp_server_unavailable"],
          [503, "mcp_server_cooling_down"],
        ]);
        // An edit by hand ends the cool-down (through the row's NOTIFY): the server is called again.
        await updateMcpServer(db, cliOperator, stack.gateway.secretBox, updateMcpServerSchema.parse({ id: created.id, enabled: true }));
        await waitFor(async () => (await toolNames(client)).includes("flaky__echo"), "flaky listed again");
        expect((await client.callTool({ name: "flaky__echo", arguments: { text: "back" } })).content).toEqual([{ type: "text", text: "flaky: back" }]);
      } finally {
        await client.close();
      }
    } finally {
      await failing.close();
    }
  });
});

describe("MCP gateway: two instances", () => {
  test.if(usePostgres)("share registrations through NOTIFY, and a session opened on one carries on at the other", async () => {
    const two = await startTwoGateways();
    const upstream = await startFakeMcpServer({ name: "shared" });
    try {
      const owner = (await two.seed.user()).id;
      const token = await two.seed.token({ userId: owner });
      await setTokenMcpAccess(two.database.handle.db, cliOperator, { id: token.row.id, mcpServers: ["*"], mcpTools: [] });
      const first = (await two.first.listen()).replace(/\/v1$/, "");
      const second = (await two.second.listen()).replace(/\/v1$/, "");
      // Both instances have loaded the (empty) registrations before the server is added.
      const onFirst = await connect(token.secret, "/mcp", first);
      const onSecond = await connect(token.secret, "/mcp", second);
      expect(await toolNames(onFirst)).toEqual([]);
      expect(await toolNames(onSecond)).toEqual([]);
      await createMcpServer(two.database.handle.db, cliOperator, two.first.secretBox, createMcpServerSchema.parse({ name: "shared", url: upstream.url }));
      await waitFor(async () => (await toolNames(onSecond)).includes("shared__echo"), "the second instance lists the new server");
      await waitFor(async () => (await toolNames(onFirst)).includes("shared__echo"), "the first instance lists the new server");
      // The session the first instance opened, presented to the second: restored there for the same key.
      const sessionId = (onFirst.transport as StreamableHTTPClientTransport).sessionId!;
      const call = await fetch(`${second}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token.secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "shared__echo", arguments: { text: "across" } } }),
      });
      expect(call.status).toBe(200);
      expect(await call.text()).toContain("shared: across");
      await onFirst.close();
      await onSecond.close();
    } finally {
      await upstream.close();
      await two.stop();
    }
  });
});

