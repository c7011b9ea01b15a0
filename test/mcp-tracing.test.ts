import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { teams } from "@tollgate/db";
import { cliOperator, createMcpServer, createMcpServerSchema, setTokenMcpAccess } from "../packages/admin/src/index";
import { type FakeMcpServer, startFakeMcpServer } from "./helpers/fake-mcp-server";
import { type FakeOtlpReceiver, randomHex, startFakeOtlpReceiver, tracingConfigFor } from "./helpers/fake-otlp-receiver";
import { type StackWith, startStackWith } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// Tests here start a gateway on a fresh database (seconds on a busy machine): a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

/** OTLP's SpanKind INTERNAL, the kind the GenAI conventions give execute_tool spans. */
const INTERNAL = 1;
const ERROR = 2;

let receiver: FakeOtlpReceiver;
let stack: StackWith<{ tools: FakeMcpServer }>;
let base: string;

/** The SDK's client on /mcp with the key, sending `traceparent` on every request. */
async function connect(secret: string, traceparent: string): Promise<Client> {
  const client = new Client({ name: "traced-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}`, traceparent } } }));
  return client;
}

/** The execute_tool spans of one trace, once `count` of them arrived. */
async function toolSpansOf(traceId: string, count: number) {
  await stack.gateway.services.tracing!.flush();
  const spans = await receiver.waitForSpans(
    (all) => all.filter((span) => span.traceId === traceId && span.name.startsWith("execute_tool ")).length >= count,
    `${count} execute_tool spans of trace ${traceId}`,
  );
  return spans.filter((span) => span.traceId === traceId && span.name.startsWith("execute_tool "));
}

beforeAll(async () => {
  receiver = startFakeOtlpReceiver();
  stack = await startStackWith(async (keep) => ({ tools: await keep(startFakeMcpServer({ name: "tools" })) }), { gateway: { tracing: tracingConfigFor(receiver.tracesUrl) } });
  base = (await stack.gateway.listen()).replace(/\/v1$/, "");
  await createMcpServer(stack.database.handle.db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "tools", url: stack.fakes.tools.url }));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
}, SETUP_TIMEOUT_MS);

describe("MCP traces", () => {
  test("each tools/call is an execute_tool span continuing the client's traceparent, naming the tool, server, key, user and team; a refused call's span carries its error type", async () => {
    const { db } = stack.database.handle;
    const [team] = await db.insert(teams).values({ name: `mcp-traced-${randomHex(4)}` }).returning({ id: teams.id });
    const token = await stack.seed.token({ userId: stack.userId, teamId: team!.id });
    await setTokenMcpAccess(db, cliOperator, { id: token.row.id, mcpServers: ["tools"], mcpTools: ["tools__echo"] });
    const traceId = randomHex(16);
    const parentSpanId = randomHex(8);
    const client = await connect(token.secret, `00-${traceId}-${parentSpanId}-01`);
    try {
      const answered = await client.callTool({ name: "tools__echo", arguments: { text: "traced" } });
      expect(answered.content).toEqual([{ type: "text", text: "tools: traced" }]);
      const refused = await client.callTool({ name: "tools__drop_tables", arguments: {} }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(McpError);
    } finally {
      await client.close();
    }
    const spans = await toolSpansOf(traceId, 2);
    const echo = spans.find((span) => span.name === "execute_tool tools__echo")!;
    expect(echo.kind).toBe(INTERNAL);
    expect(echo.parentSpanId).toBe(parentSpanId);
    expect(echo.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "tools__echo",
      "tollgate.mcp.server": "tools",
      "tollgate.token.id": token.row.id,
      "tollgate.user.id": stack.userId,
      "tollgate.team.id": team!.id,
    });
    expect(echo.attributes["error.type"]).toBeUndefined();
    expect(echo.statusCode).not.toBe(ERROR);
    const dropped = spans.find((span) => span.name === "execute_tool tools__drop_tables")!;
    expect(dropped.parentSpanId).toBe(parentSpanId);
    expect(dropped.attributes).toMatchObject({ "gen_ai.tool.name": "tools__drop_tables", "error.type": "tool_not_allowed", "tollgate.team.id": team!.id });
    expect(dropped.statusCode).toBe(ERROR);
  });

  test("a call without a traceparent starts a trace of its own", async () => {
    const token = await stack.seed.token({ userId: stack.userId });
    await setTokenMcpAccess(stack.database.handle.db, cliOperator, { id: token.row.id, mcpServers: ["tools"] });
    const client = new Client({ name: "untraced-agent", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token.secret}` } } }));
    try {
      await client.callTool({ name: "tools__add", arguments: { a: 1, b: 2 } });
    } finally {
      await client.close();
    }
    await stack.gateway.services.tracing!.flush();
    const spans = await receiver.waitForSpans(
      (all) => all.some((span) => span.name === "execute_tool tools__add" && span.attributes["tollgate.token.id"] === token.row.id),
      "the execute_tool span of the untraced call",
    );
    const span = spans.find((candidate) => candidate.name === "execute_tool tools__add" && candidate.attributes["tollgate.token.id"] === token.row.id)!;
    expect(span.parentSpanId).toBeNull();
    expect(span.attributes["tollgate.team.id"]).toBeUndefined();
  });
});
