import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { mcpServers } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { join } from "node:path";
import { cliOperator, createMcpServer, createMcpServerSchema, setTokenMcpAccess, testMcpServer } from "../packages/admin/src/index";
import { freshDatabase, type FreshDatabase } from "./helpers/fresh-database";
import { type GatewayUnderTest, seeder, startGateway } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";
import { defaultMcpOptions } from "@tollgate/gateway/mcp/mcp-directory";

/** The fixture server, run by the gateway as its child: this Bun, the script. */
const COMMAND = [process.execPath, join(import.meta.dir, "fixtures", "mcp-stdio-server.ts")];

let database: FreshDatabase;
let enabled: GatewayUnderTest;
let disabled: GatewayUnderTest;
let secret: string;

beforeAll(async () => {
  database = await freshDatabase();
  enabled = await startGateway(database.handle, { mcp: { ...defaultMcpOptions, stdioEnabled: true } });
  disabled = await startGateway(database.handle);
  const seed = seeder(database.handle, enabled.secretBox);
  const user = await seed.user();
  const token = await seed.token({ userId: user.id });
  secret = token.secret;
  await setTokenMcpAccess(database.handle.db, cliOperator, { id: token.row.id, mcpServers: ["local"], mcpTools: [] });
  await createMcpServer(database.handle.db, cliOperator, enabled.secretBox, createMcpServerSchema.parse({ name: "local", transport: "stdio", command: COMMAND, credential: "local-secret" }));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await enabled?.stop();
  await disabled?.stop();
  await database?.drop();
}, SETUP_TIMEOUT_MS);

async function connect(gateway: GatewayUnderTest): Promise<Client> {
  const base = (await gateway.listen()).replace(/\/v1$/, "");
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }));
  return client;
}

describe("MCP gateway: a local stdio server", () => {
  test("runs as the gateway's child when MCP_STDIO_ENABLED is on: listed, called, and given its credential in its environment", async () => {
    const client = await connect(enabled);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(names).toEqual(["local__add", "local__drop_tables", "local__echo", "local__whoami"]);
      expect((await client.callTool({ name: "local__echo", arguments: { text: "piped" } })).content).toEqual([{ type: "text", text: "local: piped" }]);
      expect((await client.callTool({ name: "local__whoami", arguments: {} })).content).toEqual([{ type: "text", text: "credential given" }]);
    } finally {
      await client.close();
    }
  });

  test("is never started where stdio is off: its tools are not listed, a call is refused, and it is not cooled down for the others", async () => {
    const client = await connect(disabled);
    try {
      expect((await client.listTools()).tools).toEqual([]);
      const refused = await client.callTool({ name: "local__echo", arguments: { text: "x" } }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).message).toContain("Unknown tool: local__echo");
      const [row] = await database.handle.db.select().from(mcpServers).where(eq(mcpServers.name, "local"));
      expect(row!.cooldownUntil).toBeNull();
    } finally {
      await client.close();
    }
  });

  test("Test connects, initializes and lists its tools when stdio is enabled, and says why not when it is off", async () => {
    const tested = await testMcpServer(database.handle.db, cliOperator, enabled.secretBox, "local", { stdioEnabled: true });
    expect(tested.ok).toBe(true);
    expect(tested.serverInfo?.name).toBe("local");
    expect(tested.tools.map((tool) => tool.name).sort()).toEqual(["add", "drop_tables", "echo", "whoami"]);
    const off = await testMcpServer(database.handle.db, cliOperator, enabled.secretBox, "local", { stdioEnabled: false });
    expect(off.ok).toBe(false);
    expect(off.error).toContain("MCP_STDIO_ENABLED");
  });
});
