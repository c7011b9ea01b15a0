import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_UPSTREAM_MAX_BODY_BYTES, UpstreamResponseTooLargeError } from "../fetch-upstream";

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
export const CLIENT_INFO = { name: "tollgate", version: "0.1.0" };

/** The most one answer of an upstream MCP server may weigh (a stream of notifications: in all, then it reconnects). */
export const MAX_RESPONSE_BYTES = DEFAULT_UPSTREAM_MAX_BODY_BYTES;

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

/**
 * Connects to an upstream MCP server with the official SDK's client and initializes it (Streamable HTTP, the
 * older HTTP+SSE transport, or a local command over stdio), relaying its list-changed notifications. The
 * SDK's client side is loaded on the first connection (open-mcp-client.ts): a gateway, console or CLI that
 * reaches no MCP server never holds it (with its schema validators, about 150 modules).
 */
export async function connectMcpServer(server: McpServerToConnect, options: McpConnectOptions, timeoutMs = 30_000): Promise<Client> {
  const { openMcpClient } = await import("./open-mcp-client");
  return openMcpClient(server, options, timeoutMs);
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
