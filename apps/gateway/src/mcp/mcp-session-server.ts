import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describeMcpError } from "@tollgate/upstream/mcp";
// The session's transport comes with its server: mcp-sessions.ts loads this module (and the SDK) on the first MCP request.
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { NAMESPACE_SEPARATOR, serverAllowed, splitNamespaced, toolAllowed } from "./mcp-access";
import type { McpDirectory, McpServerEntry } from "./mcp-directory";
import { callTool, type McpRequestContext } from "./mcp-tool-call";

/** What the gateway tells clients it is (initialize's serverInfo). */
const SERVER_INFO = { name: "tollgate", version: "0.1.0" };

/** The context the HTTP handler put in the request's authInfo. */
function contextOf(extra: { authInfo?: { extra?: Record<string, unknown> } }): McpRequestContext {
  const context = extra.authInfo?.extra?.context as McpRequestContext | undefined;
  if (!context) throw new McpError(ErrorCode.InternalError, "The request reached the MCP server without its caller.");
  return context;
}

/**
 * The MCP server one client session talks to: the official SDK's Server, whose handlers aggregate the
 * upstream servers its key may use (`scope` null: every one, names `server__name`) or expose one alone
 * (`/mcp/{server}`: names as the server gives them). Who calls is read per request, never kept: a key
 * disabled or narrowed mid-session is refused at its next request.
 */
export function createSessionServer(directory: McpDirectory, scope: string | null): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
    instructions: scope === null ? "Tools of several MCP servers, each named server__tool." : undefined,
  });

  const visible = async (context: McpRequestContext): Promise<McpServerEntry[]> => {
    const entries = [...(await directory.servers()).values()].filter((entry) => directory.usable(entry) && serverAllowed(context.caller, entry));
    return scope === null ? entries : entries.filter((entry) => entry.name === scope);
  };
  const publicName = (entry: McpServerEntry, name: string) => (scope === null ? `${entry.name}${NAMESPACE_SEPARATOR}${name}` : name);

  /**
   * Each server's part of a listing, every item under its public name; a server that fails is cooled down and
   * left out, the others still listed.
   */
  async function gather<Item extends { name: string }>(context: McpRequestContext, list: (entry: McpServerEntry) => Promise<Item[]>): Promise<Item[]> {
    const parts = await Promise.all(
      (await visible(context)).map(async (entry) => {
        if (directory.cooldownOf(entry) > 0) return [];
        try {
          return (await list(entry)).map((item) => ({ ...item, name: publicName(entry, item.name) }));
        } catch (error) {
          context.services.log("warn", "MCP server listing failed", { mcpServer: entry.id, error: describeMcpError(error) });
          directory.recordFailure(entry, error);
          return [];
        }
      }),
    );
    return parts.flat();
  }

  /** The server and its own name for a name the client used; a name that reaches no server it may use is unknown. */
  const resolve = async (context: McpRequestContext, name: string, what: string): Promise<{ entry: McpServerEntry; item: string }> => {
    const parts = scope === null ? splitNamespaced(name) : { server: scope, item: name };
    const entry = parts ? (await directory.servers()).get(parts.server) : undefined;
    if (!parts || !entry || !directory.usable(entry) || !serverAllowed(context.caller, entry)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown ${what}: ${name}`, { status: 404, code: `${what}_not_found` });
    }
    return { entry, item: parts.item };
  };

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const context = contextOf(extra);
    const tools = await gather(context, async (entry) => (await directory.tools(entry)).filter((tool) => toolAllowed(context.caller.token, entry.name, tool.name)));
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const context = contextOf(extra);
    const { entry, item } = await resolve(context, request.params.name, "tool");
    return callTool(context, entry, item, directory, { arguments: request.params.arguments, signal: extra.signal });
  });

  server.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => {
    const context = contextOf(extra);
    return { prompts: await gather(context, (entry) => directory.prompts(entry)) };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const context = contextOf(extra);
    const { entry, item } = await resolve(context, request.params.name, "prompt");
    const client = await directory.client(entry);
    return client.getPrompt({ name: item, arguments: request.params.arguments }, { timeout: directory.options.requestTimeoutMs, signal: extra.signal });
  });

  server.setRequestHandler(ListResourcesRequestSchema, async (_request, extra) => {
    const context = contextOf(extra);
    return { resources: await gather(context, (entry) => directory.resources(entry)) };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (_request, extra) => {
    const context = contextOf(extra);
    return { resourceTemplates: await gather(context, (entry) => directory.resourceTemplates(entry)) };
  });

  // A resource keeps its own URI: it is read from the server that lists it (or, alone, the one server in scope).
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const context = contextOf(extra);
    const { uri } = request.params;
    const entries = (await visible(context)).filter((entry) => directory.cooldownOf(entry) === 0);
    let owner: McpServerEntry | undefined;
    for (const entry of entries) {
      const listed = await directory.resources(entry).catch(() => []);
      if (listed.some((resource) => resource.uri === uri)) {
        owner = entry;
        break;
      }
    }
    owner ??= entries.length === 1 ? entries[0] : undefined;
    if (!owner) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`, { status: 404, code: "resource_not_found" });
    const client = await directory.client(owner);
    return client.readResource({ uri }, { timeout: directory.options.requestTimeoutMs, signal: extra.signal });
  });

  return server;
}
