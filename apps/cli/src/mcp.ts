import {
  cliOperator,
  createMcpServer,
  createMcpServerSchema,
  deleteMcpServer,
  findTeam,
  listMcpServers,
  type McpServerView,
  testMcpServer,
  type TokenMcpAccessInput,
  tokenMcpAccessSchema,
} from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { listFromText, parseInput } from "./flag-values";
import { formatFields, formatJson, formatList, formatTable, formatUsd } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

const mcpFlags = {
  url: "--url",
  command: "--command",
  transport: "--transport",
  credential: "--credential",
  credentialHeader: "--credential-header",
  groups: "--group",
  teams: "--teams",
  pricePerCall: "--price-per-call",
};

/** No price is a free call, not an unlimited one. */
function pricePerCallText(micros: number | null): string {
  return micros === null ? "free" : formatUsd(micros);
}

/** Who may use the server: its groups and teams (`team:ID`), or everyone when it lists neither. */
function openToText(server: McpServerView): string {
  return formatList([...server.groups, ...server.teams.map((id) => `team:${id}`)], "everyone");
}

function serverJson(server: McpServerView) {
  return { ...server, cooldownUntil: server.cooldownUntil?.toISOString() ?? null, createdAt: server.createdAt.toISOString(), updatedAt: server.updatedAt.toISOString() };
}

/** `--teams NAME|ID,...` -> the teams' ids (an unknown team is refused by name). */
async function teamIdsFromText(text: string | undefined, context: CommandContext): Promise<number[] | undefined> {
  const references = listFromText(text, "teams");
  if (references === undefined) return undefined;
  return Promise.all(references.map(async (reference) => (await findTeam(context.db, reference)).id));
}

/** `mcp add --name N (--url URL | --command "prog arg ...") [--transport ...] [--credential-env VAR] ...` */
async function addMcpServer(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "mcp add",
    flags: {
      name: "string",
      url: "string",
      command: "string",
      transport: "string",
      credential: "string",
      "credential-header": "string",
      group: "string",
      teams: "string",
      "price-per-call": "string",
      json: "boolean",
    },
  });
  const command = flags.command === undefined ? undefined : flags.command.split(/\s+/).filter(Boolean);
  const input = parseInput(
    createMcpServerSchema,
    {
      name: flags.name,
      url: flags.url,
      command,
      // Checked by the schema: anything but the three transports is refused with the flag's name.
      transport: (flags.transport ?? (command ? "stdio" : undefined)) as "stdio" | undefined,
      credential: flags.credential,
      credentialHeader: flags["credential-header"],
      groups: listFromText(flags.group, "group"),
      teams: await teamIdsFromText(flags.teams, context),
      pricePerCall: flags["price-per-call"],
    },
    mcpFlags,
  );
  const created = await createMcpServer(context.db, cliOperator, context.secretBox, input, context.addressPolicy);
  if (flags.json) return formatJson(serverJson(created));
  return formatFields([
    ["created MCP server", String(created.id)],
    ["name", created.name],
    ["transport", created.transport],
    ["url", created.url ?? "-"],
    ["command", created.command?.join(" ") ?? "-"],
    ["credential", created.credentialMasked ?? "-"],
    ["open to", openToText(created)],
    ["price per call", pricePerCallText(created.pricePerCall)],
    ["tools", `${created.name}__*`],
  ]);
}

async function listMcpServersCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "mcp list", flags: { json: "boolean" } });
  const rows = await listMcpServers(context.db, context.secretBox);
  if (flags.json) return formatJson(rows.map(serverJson));
  const now = Date.now();
  return formatTable(
    ["ID", "NAME", "TRANSPORT", "STATUS", "OPEN TO", "PRICE/CALL", "CREDENTIAL", "TARGET"],
    rows.map((server) => [
      String(server.id),
      server.name,
      server.transport,
      !server.enabled ? "disabled" : server.cooldownUntil && server.cooldownUntil.getTime() > now ? "cooling down" : "enabled",
      openToText(server),
      pricePerCallText(server.pricePerCall),
      server.credentialMasked ?? "-",
      server.url ?? server.command?.join(" ") ?? "-",
    ]),
  );
}

/** `mcp test NAME_OR_ID`: connects, initializes and lists the server's tools. */
async function testMcpServerCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, { command: "mcp test", flags: { json: "boolean" }, positionals: ["NAME_OR_ID"] });
  const result = await testMcpServer(context.db, cliOperator, context.secretBox, positionals[0] as string, { stdioEnabled: context.mcpStdioEnabled ?? false });
  if (flags.json) return formatJson(result);
  if (!result.ok) throw new CommandError(`MCP server ${result.name} failed its test: ${result.error}`, { exitCode: 1 });
  return formatFields([
    ["MCP server", `${result.name} (${result.id})`],
    ["server", result.serverInfo ? `${result.serverInfo.name} ${result.serverInfo.version}` : "-"],
    ["latency", `${result.latencyMs} ms`],
    ["tools", formatList(result.tools.map((tool) => tool.name), "none")],
  ]);
}

async function removeMcpServer(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, { command: "mcp remove", flags: { json: "boolean" }, positionals: ["NAME_OR_ID"] });
  const removed = await deleteMcpServer(context.db, cliOperator, positionals[0] as string);
  if (flags.json) return formatJson({ ...removed, deleted: true });
  return `MCP server ${removed.id} (${removed.name}) deleted\n`;
}

export const mcpCommands: Record<string, CommandHandler> = {
  add: addMcpServer,
  list: listMcpServersCommand,
  test: testMcpServerCommand,
  remove: removeMcpServer,
};

/** `none` empties a list; otherwise a comma-separated list; undefined when the flag is not given. */
function namesOrNone(value: string | undefined, flag: string): string[] | undefined {
  if (value?.trim().toLowerCase() === "none") return [];
  return listFromText(value, flag);
}

/**
 * `token update ID --mcp-servers a,b|*|none --mcp-tools a__x,b__*|none`, checked (before anything is
 * written): the token's new MCP access, or null when neither flag was given.
 */
export function tokenMcpAccessFromFlags(id: number, servers: string | undefined, tools: string | undefined): TokenMcpAccessInput | null {
  if (servers === undefined && tools === undefined) return null;
  return parseInput(
    tokenMcpAccessSchema,
    { id, mcpServers: namesOrNone(servers, "mcp-servers"), mcpTools: namesOrNone(tools, "mcp-tools") },
    { mcpServers: "--mcp-servers", mcpTools: "--mcp-tools", id: "ID" },
  );
}

/** A token's MCP access as `token update` prints it. */
export function mcpAccessFields(access: { mcpServers: string[]; mcpTools: string[] }): [string, string][] {
  return [
    ["mcp servers", formatList(access.mcpServers, "none (no MCP access)")],
    ["mcp tools", formatList(access.mcpTools, "every tool of those servers")],
  ];
}
