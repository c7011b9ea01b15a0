import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { createChannelProber } from "@tollgate/upstream";
import { MAX_LIST_PAGES, probeMcpServer } from "@tollgate/upstream/mcp";
import { cliOperator, createApiKey, createMcpServer, createMcpServerSchema, setTokenMcpAccess } from "../packages/admin/src/index";
import { MAX_PROVIDER_ANSWER_BYTES } from "../apps/console/src/auth/oidc-sign-in";
import { createConsole } from "../apps/console/src/create-console";
import { defaultMcpOptions, MAX_LISTED_BYTES } from "../apps/gateway/src/mcp/mcp-directory";
import { MAX_SESSIONS_PER_KEY } from "../apps/gateway/src/mcp/mcp-sessions";
import { type FakeMcpServer, startFakeMcpServer } from "./helpers/fake-mcp-server";
import { type StackWith, startStackWith, waitFor } from "./helpers/gateway-fixture";
import { SETUP_TIMEOUT_MS } from "./helpers/timeouts";

// A fresh PGlite takes seconds to migrate on a busy machine: a bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

/** An upstream MCP request's time (MCP_REQUEST_TIMEOUT_MS) in this file: short, so that a silent server is given up on soon. */
const MCP_REQUEST_TIMEOUT_MS = 5_000;

/** The gateway's body cap in this file: small, so that a body past it is cheap to send. */
const MAX_BODY_BYTES = 1024 * 1024;

/** MCP sessions an instance holds in this file: small, so that filling the table takes a few keys. */
const MAX_MCP_SESSIONS = 3 * MAX_SESSIONS_PER_KEY;

/** Time for a request body to arrive (BODY_READ_TIMEOUT_MS) in this file: short, so that a trickled body is refused soon. */
const BODY_READ_TIMEOUT_MS = 2_000;

/** A body that sends its first bytes, then nothing more, without ending (a slow client). */
function stalledBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return new Promise(() => {});
      sent = true;
      controller.enqueue(new TextEncoder().encode('{"name":"'));
    },
  });
}

/** A tool call that never ends, held open until the server closes: the gateway must give up on its own clock. */
const never = () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { headers: { "content-type": "text/event-stream" } });

/** An SSE answer of endless bytes that never completes an event. */
const endless = () => {
  const chunk = new TextEncoder().encode(`data: ${"x".repeat(64 * 1024)}`);
  return new Response(new ReadableStream({ pull: (controller) => controller.enqueue(chunk) }), { headers: { "content-type": "text/event-stream" } });
};

interface HostileMcpServer {
  url: string;
  /** tools/list requests it received. */
  listRequests(): number;
  close(): Promise<void>;
}

/**
 * An upstream MCP server that speaks just enough JSON-RPC to initialize, lists `count` tools with long names,
 * and answers the tools `slow` (never), `endless` (bytes without end) and `garbage` (broken JSON-RPC) badly;
 * with `endlessPages`, every tools/list page (`count` tools with descriptions of `descriptionBytes`) names a next one.
 */
function startHostileMcpServer(count: number, options: { endlessPages?: boolean; descriptionBytes?: number } = {}): HostileMcpServer {
  let listRequests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      if (request.method !== "POST") return new Response(null, { status: 405 });
      const message = (await request.json()) as { id?: number; method: string; params?: { protocolVersion?: string; name?: string } };
      if (message.id === undefined) return new Response(null, { status: 202 });
      if (message.method === "initialize") {
        return Response.json({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
      }
      if (message.method === "tools/list") listRequests++;
      if (message.method === "tools/list" && options.endlessPages) {
        const description = "d".repeat(options.descriptionBytes ?? 0);
        const tools = Array.from({ length: count }, (_, index) => ({ name: `fat_${listRequests}_${index}`, description, inputSchema: { type: "object" } }));
        return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools, nextCursor: `page-${listRequests}` } });
      }
      if (message.method === "tools/list") {
        const tools = Array.from({ length: count }, (_, index) => ({ name: `tool_${index}_${"x".repeat(200)}`, inputSchema: { type: "object" } }));
        return Response.json({ jsonrpc: "2.0", id: message.id, result: { tools: [...["slow", "endless", "garbage"].map((name) => ({ name, inputSchema: { type: "object" } })), ...tools] } });
      }
      if (message.method === "tools/call" && message.params?.name === "slow") return never();
      if (message.method === "tools/call" && message.params?.name === "endless") return endless();
      if (message.method === "tools/call" && message.params?.name === "garbage") return new Response(`{"jsonrpc":"2.0","id":${message.id},"result":{`, { headers: { "content-type": "application/json" } });
      return Response.json({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/mcp`, listRequests: () => listRequests, close: () => server.stop(true) };
}

type Fakes = { alpha: FakeMcpServer; flood: HostileMcpServer; pager: HostileMcpServer; fat: HostileMcpServer };
let stack: StackWith<Fakes>;
let gatewayBase: string;
let consoleServer: ReturnType<typeof Bun.serve>;
let apiUrl: string;
let writeKey: string;

beforeAll(async () => {
  stack = await startStackWith(async (keep) => ({
    alpha: await keep(startFakeMcpServer({ name: "alpha" })),
    flood: await keep(Promise.resolve(startHostileMcpServer(100_000))),
    pager: await keep(Promise.resolve(startHostileMcpServer(0, { endlessPages: true }))),
    fat: await keep(Promise.resolve(startHostileMcpServer(5, { endlessPages: true, descriptionBytes: 1024 * 1024 }))),
  }), { gateway: { maxBodyBytes: MAX_BODY_BYTES, bodyReadTimeoutMs: BODY_READ_TIMEOUT_MS, mcp: { ...defaultMcpOptions, requestTimeoutMs: MCP_REQUEST_TIMEOUT_MS, failureThreshold: 1_000, maxSessions: MAX_MCP_SESSIONS } } });
  gatewayBase = (await stack.gateway.listen()).replace(/\/v1$/, "");
  const { db } = stack.database.handle;
  await createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "alpha", url: stack.fakes.alpha.url }));
  await createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "flood", url: stack.fakes.flood.url }));
  await createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "pager", url: stack.fakes.pager.url }));
  await createMcpServer(db, cliOperator, stack.gateway.secretBox, createMcpServerSchema.parse({ name: "fat", url: stack.fakes.fat.url }));
  const consoleApp = createConsole({
    database: stack.database.handle,
    secretBox: stack.gateway.secretBox,
    setupCodes: null,
    testChannel: createChannelProber(),
    bodyReadTimeoutMs: BODY_READ_TIMEOUT_MS,
    clientAddress: (request) => consoleServer.requestIP(request)?.address ?? null,
  });
  consoleServer = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (request) => (await consoleApp.handle(request)) ?? new Response("not found", { status: 404 }) });
  apiUrl = `http://127.0.0.1:${consoleServer.port}/api/v1`;
  writeKey = (await createApiKey(db, cliOperator, { name: "hostile", scope: "write" })).secret;
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await consoleServer?.stop(true);
  await stack?.stop();
}, SETUP_TIMEOUT_MS);

async function mcpKey(servers: string[]): Promise<string> {
  const token = await stack.seed.token({ userId: stack.userId });
  await setTokenMcpAccess(stack.database.handle.db, cliOperator, { id: token.row.id, mcpServers: servers, mcpTools: [] });
  return token.secret;
}

async function connect(secret: string, path = "/mcp"): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "hostile-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${gatewayBase}${path}`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } });
  await client.connect(transport);
  return { client, transport };
}

function mcpPost(secret: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gatewayBase}/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
}

function apiCall(method: string, path: string, options: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${apiUrl}${path}`, { method, headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json", ...options.headers }, body: options.body });
}

/** A body that arrives in chunks without a Content-Length (chunked transfer), `total` bytes in all. */
function chunkedBody(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

const deepArray = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const listUsers = async () => ((await (await apiCall("GET", "/users?limit=200")).json()) as { data: { name: string }[] }).data.map((user) => user.name);

describe("management API under hostile input", () => {
  test("a body over the cap is refused with 413 in the API's envelope, declared or chunked, and creates nothing", async () => {
    const name = `big-${crypto.randomUUID()}`;
    const declared = await apiCall("POST", "/users", { body: JSON.stringify({ name, padding: "x".repeat(2 * 1024 * 1024) }) });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
    const chunked = await fetch(`${apiUrl}/users`, { method: "POST", headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json" }, body: chunkedBody(2 * 1024 * 1024) });
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as { error: { code: string } }).error.code).toBe("request_too_large");
    expect(await listUsers()).not.toContain(name);
  });

  test("a body that stalls is refused with 408 in the API's envelope, and /healthz of the gateway answers meanwhile", async () => {
    const stalled = fetch(`${apiUrl}/users`, { method: "POST", headers: { authorization: `Bearer ${writeKey}`, "content-type": "application/json" }, body: stalledBody() });
    expect((await fetch(`${gatewayBase}/healthz`)).status).toBe(200);
    const response = await stalled;
    expect(response.status).toBe(408);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("request_timeout");
  });

  test("a body nested 50,000 deep is a 400, with an Idempotency-Key too, and the key stays free for a good retry", async () => {
    const name = `deep-${crypto.randomUUID()}`;
    const key = `deep-${crypto.randomUUID()}`;
    for (const headers of [{}, { "idempotency-key": key }] as Record<string, string>[]) {
      const response = await apiCall("POST", "/users", { body: `{"name":"${name}","extra":${deepArray(50_000)}}`, headers });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string; type: string } }).error).toMatchObject({ code: "invalid_json", type: "invalid_request_error" });
    }
    const retried = await apiCall("POST", "/users", { body: JSON.stringify({ name }), headers: { "idempotency-key": key } });
    expect(retried.status).toBe(201);
    expect(await listUsers()).toContain(name);
  });

  test("invalid JSON and invalid UTF-8 are 400 invalid_json", async () => {
    for (const body of ["{nope", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
      const response = await apiCall("POST", "/users", { body });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
    }
  });

  test("a path segment that is not valid percent-encoding is a 400, not an internal error", async () => {
    const response = await apiCall("GET", "/users/%E0%A4%A");
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_input");
  });

  test("a 10 KB Idempotency-Key is a 400 naming the header, and creates nothing", async () => {
    const name = `idem-${crypto.randomUUID()}`;
    const response = await apiCall("POST", "/users", { body: JSON.stringify({ name }), headers: { "idempotency-key": "k".repeat(10_000) } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe("Idempotency-Key");
    expect(await listUsers()).not.toContain(name);
  });

  test("a 10 KB Authorization header is a 401 that does not echo it", async () => {
    const secret = "a".repeat(10_000);
    const response = await apiCall("GET", "/users", { headers: { authorization: `Bearer ${secret}` } });
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain("aaaaaaaaaa");
  });

  test("cursor garbage is a 400 naming the cursor", async () => {
    for (const cursor of ["abc", "1e400", "9".repeat(150), "\u0000", "x".repeat(5_000)]) {
      const response = await apiCall("GET", `/users?cursor=${encodeURIComponent(cursor)}`);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe("cursor");
    }
  });
});

const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });

describe("MCP endpoint under hostile input", () => {
  test("a body over the cap is a 413, declared or chunked", async () => {
    const secret = await mcpKey(["alpha"]);
    const declared = await mcpPost(secret, "x".repeat(MAX_BODY_BYTES + 1));
    expect(declared.status).toBe(413);
    const chunked = await mcpPost(secret, chunkedBody(MAX_BODY_BYTES + 64 * 1024));
    expect(chunked.status).toBe(413);
  });

  test("a body that stalls is refused with 408 and opens no session", async () => {
    const secret = await mcpKey(["alpha"]);
    const before = stack.gateway.services.mcp.sessions.size;
    const response = await mcpPost(secret, stalledBody());
    expect(response.status).toBe(408);
    expect(stack.gateway.services.mcp.sessions.size).toBe(before);
  });

  test("invalid JSON, invalid UTF-8 and deep nesting are JSON-RPC parse errors with 400", async () => {
    const secret = await mcpKey(["alpha"]);
    for (const body of ["{nope", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), deepArray(10_000)]) {
      const response = await mcpPost(secret, body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    }
  });

  test("a message that is not JSON by its content type is refused with 415 and opens no session", async () => {
    const secret = await mcpKey(["alpha"]);
    const before = stack.gateway.services.mcp.sessions.size;
    const response = await mcpPost(secret, INITIALIZE, { "content-type": "text/plain" });
    expect(response.status).toBe(415);
    expect(stack.gateway.services.mcp.sessions.size).toBe(before);
  });

  test("a JSON-RPC batch of 10,000 calls is refused whole and reaches no upstream", async () => {
    const secret = await mcpKey(["alpha"]);
    const { client, transport } = await connect(secret);
    try {
      const before = stack.fakes.alpha.calls.length;
      const batch = Array.from({ length: 10_000 }, (_, index) => ({ jsonrpc: "2.0", id: index + 1, method: "tools/call", params: { name: "alpha__echo" } }));
      const response = await mcpPost(secret, JSON.stringify(batch), { "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-06-18" });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
      expect(stack.fakes.alpha.calls.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  test("a 10 KB or malformed Authorization header is a 401 that does not echo it, and opens no session", async () => {
    const before = stack.gateway.services.mcp.sessions.size;
    for (const authorization of [`Bearer ${"a".repeat(10_000)}`, "Basic Og==", `Bearer sk-${"\u00ff".repeat(100)}`]) {
      const response = await fetch(`${gatewayBase}/mcp`, { method: "POST", headers: { authorization, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: INITIALIZE });
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain("aaaaaaaaaa");
    }
    expect(stack.gateway.services.mcp.sessions.size).toBe(before);
  });

  test("a session id that is not one of the gateway's, or a 10 KB one, is answered 404 Session not found", async () => {
    const secret = await mcpKey(["alpha"]);
    for (const id of ["not-a-session", "x".repeat(10_000)]) {
      const response = await mcpPost(secret, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { "mcp-session-id": id });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
  });

  test("one key sending made-up session ids keeps at most its own share of sessions, and another client's session carries on", async () => {
    const victim = await connect(await mcpKey(["alpha"]));
    try {
      const secret = await mcpKey(["alpha"]);
      const before = stack.gateway.services.mcp.sessions.size;
      for (let index = 0; index < MAX_SESSIONS_PER_KEY + 50; index++) {
        const response = await mcpPost(secret, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { "mcp-session-id": crypto.randomUUID(), "mcp-protocol-version": "2025-06-18" });
        await response.body?.cancel();
      }
      expect(stack.gateway.services.mcp.sessions.size - before).toBeLessThanOrEqual(MAX_SESSIONS_PER_KEY);
      expect((await victim.client.listTools()).tools.map((tool) => tool.name)).toContain("alpha__echo");
    } finally {
      await victim.client.close();
    }
  });

  test("keys that fill the session table lose their own sessions first: a client with one session keeps it", async () => {
    const victim = await connect(await mcpKey(["alpha"]));
    try {
      const victimSession = victim.transport.sessionId!;
      // Four keys, each at its own cap, want more sessions than the table holds.
      for (let key = 0; key < 4; key++) {
        const secret = await mcpKey(["alpha"]);
        for (let index = 0; index < MAX_SESSIONS_PER_KEY; index++) {
          const response = await mcpPost(secret, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { "mcp-session-id": crypto.randomUUID(), "mcp-protocol-version": "2025-06-18" });
          await response.body?.cancel();
        }
      }
      expect(stack.gateway.services.mcp.sessions.size).toBeLessThanOrEqual(MAX_MCP_SESSIONS);
      // Older than every session the four keys made, it is what evicting the least recently used would close.
      expect(stack.gateway.services.mcp.sessions.has(victimSession)).toBe(true);
      expect((await victim.client.listTools()).tools.map((tool) => tool.name)).toContain("alpha__echo");
    } finally {
      await victim.client.close();
    }
  });

  test("an upstream that lists 100,000 tools with long names is cut to 5,000, and /healthz answers meanwhile", async () => {
    const secret = await mcpKey(["flood"]);
    const { client } = await connect(secret);
    try {
      const listing = client.listTools();
      const health = await fetch(`${gatewayBase}/healthz`);
      expect(health.status).toBe(200);
      expect((await listing).tools.length).toBe(5_000);
    } finally {
      await client.close();
    }
  });
});

/** An identity provider whose discovery document never ends: counts the bytes it got to send. */
function startEndlessIssuer(): { issuer: string; sent(): number; close(): Promise<void> } {
  let sent = 0;
  const chunk = new TextEncoder().encode(`{"issuer":"${"x".repeat(64 * 1024)}`);
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
        { headers: { "content-type": "application/json" } },
      ),
  });
  return { issuer: `http://127.0.0.1:${server.port}`, sent: () => sent, close: () => server.stop(true) };
}

describe("single sign-on under a hostile identity provider", () => {
  test("a discovery document that never ends is cut off at the answer cap and the browser is sent back with a reason", async () => {
    const endless = startEndlessIssuer();
    try {
      const consoleApp = createConsole({
        database: stack.database.handle,
        secretBox: stack.gateway.secretBox,
        setupCodes: null,
        testChannel: createChannelProber(),
        publicBaseUrl: "http://console.test",
        oidc: { issuer: endless.issuer, clientId: "c", clientSecret: "s", groupsClaim: "groups", adminGroups: [], displayName: "Endless", only: false, allowHttpIssuer: true, providerLogout: false },
      });
      const response = await consoleApp.handle(new Request("http://console.test/auth/oidc/login"));
      expect(response?.status).toBe(302);
      expect(response?.headers.get("location")).toStartWith("/login?sso_error=");
      // What it sent past the cap is what the sockets buffered before the read stopped, not the 30 s timeout's worth.
      expect(endless.sent()).toBeLessThan(MAX_PROVIDER_ANSWER_BYTES * 64);
    } finally {
      await endless.close();
    }
  });
});

describe("MCP gateway under a hostile upstream server", () => {
  test("a server whose pages of 1 MiB tools never end is listed up to MAX_LISTED_BYTES, read no further", async () => {
    const { client } = await connect(await mcpKey(["fat"]));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(JSON.stringify(tools).length).toBeLessThan(MAX_LISTED_BYTES + 64 * 1024);
      expect(stack.fakes.fat.listRequests()).toBeLessThanOrEqual(Math.ceil(MAX_LISTED_BYTES / (5 * 1024 * 1024)) + 1);
    } finally {
      await client.close();
    }
  });

  test("a server whose every tools/list page names a next one is read for MAX_LIST_PAGES pages, in the gateway and in the console's Test", async () => {
    const { client } = await connect(await mcpKey(["pager", "alpha"]));
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain("alpha__echo");
      expect(stack.fakes.pager.listRequests()).toBe(MAX_LIST_PAGES);
    } finally {
      await client.close();
    }
    const probed = await probeMcpServer({ name: "pager", transport: "streamable-http", url: stack.fakes.pager.url, command: null, credentialHeader: null, credential: null }, { stdioEnabled: false });
    expect(probed).toMatchObject({ ok: true, tools: [] });
    expect(stack.fakes.pager.listRequests()).toBe(2 * MAX_LIST_PAGES);
  });

  const cases = [
    ["garbage", "answers broken JSON-RPC"],
    ["endless", "answers bytes without end"],
    ["slow", "never answers"],
  ] as const;
  for (const [tool, behaviour] of cases) {
    test(`a tool call to a server that ${behaviour} fails with a JSON-RPC error, and /healthz answers while it runs`, async () => {
      const { client } = await connect(await mcpKey(["flood"]));
      try {
        let settled = false;
        // The client's own timeout is far past the gateway's: the gateway must end the call itself.
        const call = client.callTool({ name: `flood__${tool}` }, undefined, { timeout: 10 * MCP_REQUEST_TIMEOUT_MS }).finally(() => {
          settled = true;
        });
        const health = await fetch(`${gatewayBase}/healthz`);
        expect(health.status).toBe(200);
        if (tool !== "garbage") expect(settled).toBe(false);
        const failed = await call.then(() => null, (error: unknown) => error);
        expect(failed).toBeInstanceOf(McpError);
        expect((failed as McpError).code).toBe(ErrorCode.InternalError);
        expect((failed as McpError).message).toContain("The MCP server flood failed");
      } finally {
        await client.close();
      }
    });
  }
});
