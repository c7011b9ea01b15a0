import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { UpstreamRedirectError, UpstreamResponseTooLargeError } from "../fetch-upstream";
import { CappedStdioTransport } from "./capped-stdio-transport";
import { CLIENT_INFO, MAX_RESPONSE_BYTES, MAX_STDIO_MESSAGE_BYTES, McpConfigurationError, type McpConnectOptions, type McpServerToConnect } from "./connect-mcp-server";

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

/** connectMcpServer's work, in a module of its own so that the SDK loads only when a server is reached. */
export async function openMcpClient(server: McpServerToConnect, options: McpConnectOptions, timeoutMs = 30_000): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onListChanged?.("tools"));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => options.onListChanged?.("prompts"));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => options.onListChanged?.("resources"));
  client.onclose = () => options.onClose?.();
  client.onerror = (error) => options.onError?.(error);
  await client.connect(transportFor(server, options), { timeout: timeoutMs });
  return client;
}
