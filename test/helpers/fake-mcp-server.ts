import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** A tool of the fake server: its listing and what a call answers. */
export interface FakeTool {
  tool: Tool;
  call(args: Record<string, unknown>): { content: { type: "text"; text: string }[]; isError?: boolean };
}

/** The tools every fake server offers: echo, add, and one a token's allow-list can leave out. */
export function standardTools(serverName: string): FakeTool[] {
  return [
    {
      tool: { name: "echo", description: `Echoes its text (${serverName})`, inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
      call: (args) => ({ content: [{ type: "text", text: `${serverName}: ${String(args.text)}` }] }),
    },
    {
      tool: { name: "add", description: "Adds two numbers", inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } } },
      call: (args) => ({ content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }] }),
    },
    {
      tool: { name: "drop_tables", description: "A dangerous tool", inputSchema: { type: "object" } },
      call: () => ({ content: [{ type: "text", text: "dropped" }] }),
    },
  ];
}

/** One MCP server made with the official SDK, as the fakes here and the stdio fixture build it. */
export function buildFakeMcpServer(name: string, tools: FakeTool[], onCall: (tool: string, args: Record<string, unknown>) => void): Server {
  const server = new Server(
    { name, version: "1.0.0" },
    { capabilities: { tools: { listChanged: true }, prompts: {}, resources: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((entry) => entry.tool) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    onCall(request.params.name, args);
    const found = tools.find((entry) => entry.tool.name === request.params.name);
    if (!found) return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true };
    return found.call(args);
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [{ name: "greet", description: "Greets someone", arguments: [{ name: "who", required: true }] }] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => ({
    messages: [{ role: "user", content: { type: "text", text: `Hello ${request.params.arguments?.who ?? "?"} from ${name}` } }],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: `memo://${name}/readme`, name: "readme", mimeType: "text/plain" }] }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => ({ contents: [{ uri: request.params.uri, mimeType: "text/plain", text: `readme of ${name}` }] }));
  return server;
}

export interface FakeMcpServer {
  name: string;
  url: string;
  /** Every tools/call it received, in order. */
  calls: { tool: string; args: Record<string, unknown> }[];
  /** The Authorization (or other credential) headers it received. */
  credentials: string[];
  /** HTTP requests it received (failing or not). */
  readonly requests: number;
  /** From now on every HTTP request fails with 500 (a server that broke), or works again. */
  setFailing(failing: boolean): void;
  /** Adds a tool and tells every session its tool list changed. */
  addTool(tool: FakeTool): Promise<void>;
  /** Tells every session its tool list changed (again). */
  announceToolsChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real MCP server (the SDK's Server on its web-standard Streamable HTTP transport, stateful sessions)
 * listening on port 0, for the gateway to put behind its keys.
 */
export async function startFakeMcpServer(options: { name: string; credentialHeader?: string } = { name: "fake" }): Promise<FakeMcpServer> {
  const tools = standardTools(options.name);
  const calls: FakeMcpServer["calls"] = [];
  const credentials: string[] = [];
  const sessions = new Map<string, { server: Server; transport: WebStandardStreamableHTTPServerTransport }>();
  let failing = false;
  let requests = 0;
  const announceToolsChanged = async () => {
    await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged().catch(() => undefined)));
  };
  const http = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(request) {
      requests++;
      const credential = request.headers.get(options.credentialHeader ?? "authorization");
      if (credential) credentials.push(credential);
      if (failing) return new Response("broken", { status: 500 });
      const sessionId = request.headers.get("mcp-session-id");
      const existing = sessionId ? sessions.get(sessionId) : undefined;
      if (existing) return existing.transport.handleRequest(request);
      if (sessionId) return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });
      const server = buildFakeMcpServer(options.name, tools, (tool, args) => calls.push({ tool, args }));
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, { server, transport }),
      });
      await server.connect(transport);
      return transport.handleRequest(request);
    },
  });
  return {
    name: options.name,
    url: `http://127.0.0.1:${http.port}/mcp`,
    calls,
    credentials,
    get requests() {
      return requests;
    },
    setFailing(value) {
      failing = value;
    },
    async addTool(tool) {
      tools.push(tool);
      await announceToolsChanged();
    },
    announceToolsChanged,
    async close() {
      await Promise.all([...sessions.values()].map(({ server }) => server.close().catch(() => undefined)));
      await http.stop(true);
    },
  };
}

/**
 * A real MCP server on the older HTTP+SSE transport (the SDK's SSEServerTransport on node:http, port 0): GET
 * /sse opens the event stream, POST /messages?sessionId=... carries the client's messages.
 */
export async function startFakeSseMcpServer(name: string): Promise<{ url: string; calls: FakeMcpServer["calls"]; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
  const calls: FakeMcpServer["calls"] = [];
  const transports = new Map<string, InstanceType<typeof SSEServerTransport>>();
  const http = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (request.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", response);
      transports.set(transport.sessionId, transport);
      response.on("close", () => transports.delete(transport.sessionId));
      await buildFakeMcpServer(name, standardTools(name), (tool, args) => calls.push({ tool, args })).connect(transport);
      return;
    }
    const transport = transports.get(url.searchParams.get("sessionId") ?? "");
    if (request.method === "POST" && url.pathname === "/messages" && transport) {
      await transport.handlePostMessage(request, response);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/sse`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const transport of transports.values()) void transport.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
