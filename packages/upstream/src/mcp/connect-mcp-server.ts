import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CappedStdioTransport } from "./capped-stdio-transport";
import { DEFAULT_UPSTREAM_MAX_BODY_BYTES, UpstreamRedirectError, UpstreamResponseTooLargeError } from "../fetch-upstream";

/** An upstream MCP server as the gateway reaches it, its credential already decrypted. */
export interface McpServerToConnect {
  name: string;
  transport: "streamable-http" | "sse" | "stdio";
  url: string | null;
  command: readonly string[] | null;
  /** The header the credential goes in; null or `authorization`: `Authorization: Bearer <credential>`. */
  credentialHeader: string | null;
  credential: string | null;
}

export interface McpConnectOptions {
  /** A stdio server's command runs only when the operator enabled it (MCP_STDIO_ENABLED). */
  stdioEnabled: boolean;
  /** Which list the server said changed (notifications/{tools,prompts,resources}/list_changed). */
  onListChanged?(list: "tools" | "prompts" | "resources"): void;
  /** The connection ended (the server went away, the stdio child exited). */
  onClose?(): void;
  /** The transport failed or read something it could not use (a stdio line that is not JSON-RPC, an answer past its cap). */
  onError?(error: Error): void;
}

/** The server cannot be reached the way it is registered (stdio disabled, no URL): the admin's to fix. */
export class McpConfigurationError extends Error {
  override name = "McpConfigurationError";
}

/** What the gateway tells the upstream it is (its clientInfo). */
const CLIENT_INFO = { name: "tollgate", version: "0.1.0" };

/** The most one answer of an upstream MCP server may weigh (a stream of notifications: in all, then it reconnects). */
const MAX_RESPONSE_BYTES = DEFAULT_UPSTREAM_MAX_BODY_BYTES;

/**
 * The most a stdio server's output may hold before its next newline (one JSON-RPC message, or the start of
 * one): past it the child is stopped and the connection fails (capped-stdio-transport.ts).
 */
export const MAX_STDIO_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * Most pages read of one upstream list: a server whose every page names a next one (empty pages or not) is
 * stopped there, not followed for ever.
 */
export const MAX_LIST_PAGES = 100;

/** The body passed through until `maxBytes` have gone by; past them the read fails (the server is cut off). */
function capped(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new UpstreamResponseTooLargeError(maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * fetch for an upstream MCP server, which is not trusted either: a redirect is never followed (the
 * credential must not reach the host a Location names), it fails the call instead; and an answer is read
 * only up to its byte cap.
 */
const fetchWithoutRedirects = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const response = await fetch(url, { ...init, redirect: "manual" });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new UpstreamRedirectError(response.status);
  }
  if (!response.body) return response;
  return new Response(capped(response.body, MAX_RESPONSE_BYTES), { status: response.status, statusText: response.statusText, headers: response.headers });
};

function credentialHeaders(server: McpServerToConnect): Record<string, string> {
  if (server.credential === null || server.credential === "") return {};
  const header = (server.credentialHeader ?? "authorization").toLowerCase();
  return header === "authorization" ? { authorization: `Bearer ${server.credential}` } : { [header]: server.credential };
}

function transportFor(server: McpServerToConnect, options: McpConnectOptions): Transport {
  if (server.transport === "stdio") {
    if (!options.stdioEnabled) throw new McpConfigurationError("stdio MCP servers are disabled on this gateway (MCP_STDIO_ENABLED=true enables them).");
    const [command, ...args] = server.command ?? [];
    if (!command) throw new McpConfigurationError(`MCP server ${server.name} has no command.`);
    // The child gets only the SDK's safe variables (PATH, HOME...); the credential goes in one variable of
    // its own, never on its command line.
    const env: Record<string, string> = {};
    if (server.credential) env.TOLLGATE_MCP_CREDENTIAL = server.credential;
    return new CappedStdioTransport({ command, args, env, maxMessageBytes: MAX_STDIO_MESSAGE_BYTES });
  }
  if (!server.url) throw new McpConfigurationError(`MCP server ${server.name} has no URL.`);
  const requestInit: RequestInit = { headers: credentialHeaders(server) };
  const url = new URL(server.url);
  if (server.transport === "sse") {
    return new SSEClientTransport(url, {
      requestInit,
      fetch: fetchWithoutRedirects,
      eventSourceInit: { fetch: (input, init) => fetchWithoutRedirects(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...credentialHeaders(server) } }) },
    });
  }
  return new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchWithoutRedirects });
}

/**
 * Connects to an upstream MCP server with the official SDK's client and initializes it (Streamable HTTP, the
 * older HTTP+SSE transport, or a local command over stdio), relaying its list-changed notifications.
 */
export async function connectMcpServer(server: McpServerToConnect, options: McpConnectOptions, timeoutMs = 30_000): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onListChanged?.("tools"));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => options.onListChanged?.("prompts"));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => options.onListChanged?.("resources"));
  client.onclose = () => options.onClose?.();
  client.onerror = (error) => options.onError?.(error);
  await client.connect(transportFor(server, options), { timeout: timeoutMs });
  return client;
}

export interface McpProbeResult {
  ok: boolean;
  latencyMs: number;
  /** The server's own name and version (initialize's serverInfo). */
  serverInfo: { name: string; version: string } | null;
  tools: { name: string; description: string | null }[];
  error: string | null;
}

/** "Test": connects, initializes and lists the server's tools, then closes the connection. */
export async function probeMcpServer(server: McpServerToConnect, options: Pick<McpConnectOptions, "stdioEnabled">, timeoutMs = 15_000): Promise<McpProbeResult> {
  const started = performance.now();
  let client: Client | null = null;
  // An answer past its cap closes the connection: what the pending request then reports is only "closed".
  let tooLarge: UpstreamResponseTooLargeError | null = null;
  const onError = (error: Error) => {
    if (error instanceof UpstreamResponseTooLargeError) tooLarge = error;
  };
  try {
    client = await connectMcpServer(server, { ...options, onError }, timeoutMs);
    const tools = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
      tools.push(...page.tools.map((tool) => ({ name: tool.name, description: tool.description ?? null })));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && tools.length < 10_000 && pages < MAX_LIST_PAGES);
    const info = client.getServerVersion();
    return { ok: true, latencyMs: Math.round(performance.now() - started), serverInfo: info ? { name: info.name, version: info.version } : null, tools, error: null };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), serverInfo: null, tools: [], error: describeMcpError(tooLarge ?? error) };
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** An upstream MCP failure in a line that quotes no credential (the SDK's messages carry status and body, not headers). */
export function describeMcpError(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return message.length > 500 ? `${message.slice(0, 500)}…` : message;
}
