import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "@tollgate/shared";
import { authenticate } from "../auth/authenticate";
import { errorResponse, GatewayError } from "../errors";
import type { GatewayServices } from "../gateway-services";
import { readBody } from "../routes/read-json-body";
import { hasMcpAccess, serverAllowed } from "./mcp-access";
import type { McpDirectory, McpListKind } from "./mcp-directory";
import type { McpRequestContext } from "./mcp-tool-call";

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The key that opened it: another key presenting its id is answered as for an unknown session. */
  tokenId: number;
  scope: string | null;
  /** Its last request's caller, for deciding which list changes it hears. */
  context: McpRequestContext;
  lastUsed: number;
}

/** A session id as this gateway makes them (a UUID); anything else is never restored. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const utf8 = new TextDecoder();

/** The SDK's server side: the session server and its Streamable HTTP transport. */
type SessionServerModule = typeof import("./mcp-session-server");

/**
 * Sessions one key may hold on an instance; past it the key's own least recently used is closed. Without it,
 * one key sending made-up session ids (each restored, as a session from another instance would be) would
 * fill the instance's table and push every other client's session out.
 */
export const MAX_SESSIONS_PER_KEY = 100;

/**
 * A POST's JSON-RPC message(s), read under /v1's body limits (MAX_BODY_BYTES: 413; BODY_READ_TIMEOUT_MS:
 * 408) and nesting bound; a Response when the body is refused (the SDK's transport would read it unbounded
 * in time).
 */
async function readMessages(services: GatewayServices, request: Request): Promise<{ parsed: unknown } | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, { maxBytes: services.options.maxBodyBytes, timeoutMs: services.options.bodyReadTimeoutMs });
  } catch (error) {
    if (error instanceof GatewayError) return errorResponse(error);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) return jsonRpcError(400, -32700, `Parse error: the message nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { parsed };
}

/** A JSON-RPC error answer, for refusals the client's MCP library reads as such. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/**
 * The client sessions of /mcp on this instance. Sessions hold no privilege: every request is authenticated
 * again and its key's access read from the token cache, so a session whose id reaches another instance
 * (behind a load balancer without affinity) is restored there under the same id for the same key, and
 * carries on. What does not follow it: a GET stream open on the first instance (list changes reach the
 * client on the instance its stream is open on), and requests in flight there.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  /**
   * The same sessions by key, each key's in order of use (least recently used first): a key's count and its
   * oldest session are found without a scan of the table.
   */
  private readonly byKey = new Map<number, Map<string, Session>>();

  constructor(
    private readonly directory: McpDirectory,
    private readonly maxBodyBytes: number,
  ) {
    directory.onListChanged((server, kind) => this.announce(server, kind));
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether the session of this id is held on this instance. */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Tells each session that may use `server` (every session when null) that its list of `kind` changed. */
  private announce(server: string | null, kind: McpListKind): void {
    void this.directory.servers().then(
      (entries) => {
        const entry = server === null ? null : entries.get(server);
        for (const session of this.sessions.values()) {
          if (server !== null) {
            if (!entry || !serverAllowed(session.context.caller, entry)) continue;
            if (session.scope !== null && session.scope !== server) continue;
          }
          const sent =
            kind === "tools" ? session.server.sendToolListChanged() : kind === "prompts" ? session.server.sendPromptListChanged() : session.server.sendResourceListChanged();
          void sent.catch(() => undefined);
        }
      },
      () => undefined,
    );
  }

  private open(runtime: SessionServerModule, id: string | null, tokenId: number, scope: string | null, context: McpRequestContext): Session {
    const transport = new runtime.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => id ?? crypto.randomUUID(),
      maxRequestBodySize: this.maxBodyBytes,
      onsessioninitialized: (sessionId) => {
        session.id = sessionId;
        this.register(session);
      },
      onsessionclosed: () => this.forget(session),
    });
    const server = runtime.createSessionServer(this.directory, scope);
    const session: Session = { id: id ?? "", transport, server, tokenId, scope, context, lastUsed: Date.now() };
    transport.onclose = () => this.forget(session);
    void server.connect(transport);
    if (id !== null) {
      // Restored: the client initialized it on another instance (or before this one restarted). The SDK's
      // transport has no public way to start initialized, so its two fields are set as initialize sets them.
      transport.sessionId = id;
      Reflect.set(transport, "_initialized", true);
      this.register(session);
    }
    return session;
  }

  /**
   * Adds a session. A key at MAX_SESSIONS_PER_KEY loses its own least recently used one. A full table loses
   * the least recently used session of the key that holds the most: whoever fills the table pays for it,
   * and a client with a few sessions keeps them however many keys others bring.
   */
  private register(session: Session): void {
    let keyed = this.byKey.get(session.tokenId);
    if (keyed && keyed.size >= MAX_SESSIONS_PER_KEY) this.close(keyed.values().next().value!);
    else if (this.sessions.size >= this.directory.options.maxSessions) {
      let heaviest: Map<string, Session> | undefined;
      for (const other of this.byKey.values()) if (!heaviest || other.size > heaviest.size) heaviest = other;
      if (heaviest) this.close(heaviest.values().next().value!);
    }
    keyed = this.byKey.get(session.tokenId);
    if (!keyed) {
      keyed = new Map();
      this.byKey.set(session.tokenId, keyed);
    }
    keyed.set(session.id, session);
    this.sessions.set(session.id, session);
  }

  /** Marks a session used now: last in its key's order. */
  private touch(session: Session): void {
    session.lastUsed = Date.now();
    const keyed = this.byKey.get(session.tokenId);
    if (keyed?.get(session.id) !== session) return;
    keyed.delete(session.id);
    keyed.set(session.id, session);
  }

  /** Drops a session from the table (it closed, or is being closed). */
  private forget(session: Session): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    const keyed = this.byKey.get(session.tokenId);
    keyed?.delete(session.id);
    if (keyed?.size === 0) this.byKey.delete(session.tokenId);
  }

  private close(session: Session): void {
    this.forget(session);
    void session.server.close().catch(() => undefined);
  }

  /**
   * One HTTP request on /mcp (scope null) or /mcp/{server}: the caller's sk- key (401), its MCP access (403),
   * the server it names (404), then the SDK's Streamable HTTP transport of its session (GET: the stream of
   * notifications; POST: JSON-RPC messages, answered in JSON or SSE as the client accepts; DELETE: the end).
   */
  async handle(services: GatewayServices, request: Request, clientAddress: string | null, scope: string | null): Promise<Response> {
    let context: McpRequestContext;
    try {
      const caller = await authenticate(services, request, clientAddress);
      if (!hasMcpAccess(caller.token)) {
        return errorResponse(new GatewayError("This API key has no MCP access; an administrator can grant it MCP servers.", { status: 403, code: "mcp_not_allowed" }));
      }
      if (scope !== null) {
        const entry = (await this.directory.servers()).get(scope);
        if (!entry || !this.directory.usable(entry) || !serverAllowed(caller, entry)) {
          return errorResponse(new GatewayError(`Unknown MCP server ${scope}, or not one this API key may use.`, { status: 404, code: "mcp_server_not_found" }));
        }
      }
      context = { services, caller, clientAddress, traceHeaders: services.tracing ? request.headers : null };
    } catch (error) {
      if (error instanceof GatewayError) return errorResponse(error);
      throw error;
    }
    let body: { parsed: unknown } | null = null;
    if (request.method === "POST") {
      const read = await readMessages(services, request);
      if (read instanceof Response) return read;
      body = read;
    }
    const sessionId = request.headers.get("mcp-session-id");
    // Loaded by the first MCP request: a gateway whose clients never use MCP does not hold the SDK (about 150
    // modules with its validators). Later requests find it loaded (an import() of a loaded module: about 4 us).
    const runtime = await import("./mcp-session-server");
    let session: Session;
    if (sessionId === null) {
      if (request.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      session = this.open(runtime, null, context.caller.token.id, scope, context);
    } else {
      const existing = this.sessions.get(sessionId);
      if (existing) {
        if (existing.tokenId !== context.caller.token.id || existing.scope !== scope) return jsonRpcError(404, -32001, "Session not found");
        session = existing;
      } else {
        if (!SESSION_ID.test(sessionId) || request.method === "DELETE") return jsonRpcError(404, -32001, "Session not found");
        session = this.open(runtime, sessionId, context.caller.token.id, scope, context);
      }
    }
    session.context = context;
    this.touch(session);
    const response = await session.transport.handleRequest(request, {
      authInfo: { token: "", clientId: String(context.caller.token.id), scopes: [], extra: { context } },
      ...(body ? { parsedBody: body.parsed } : {}),
    });
    // A transport that made no session (a first request that was not initialize) is dropped with it.
    if (sessionId === null && !this.sessions.has(session.id)) void session.server.close().catch(() => undefined);
    return response;
  }

  /** Closes the sessions idle longer than the options allow. */
  prune(now = Date.now()): void {
    for (const session of [...this.sessions.values()]) {
      if (now - session.lastUsed > this.directory.options.sessionIdleMs) this.close(session);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.byKey.clear();
    await Promise.all(all.map((session) => session.server.close().catch(() => undefined)));
  }
}
