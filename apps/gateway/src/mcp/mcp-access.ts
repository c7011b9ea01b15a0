import type { Caller } from "../auth/authenticate";
import type { McpServerEntry } from "./mcp-directory";

/** What a token says about MCP: the servers it may use (`*`: all its group may) and the tools (`server__tool`, `server__*`). */
export interface McpGrant {
  mcpServers?: readonly string[];
  mcpTools?: readonly string[];
}

/** The separator of a namespaced name: `github__create_issue` is the tool `create_issue` of the server `github`. */
export const NAMESPACE_SEPARATOR = "__";

/** A token with no MCP server listed has no MCP access at all (403). */
export function hasMcpAccess(grant: McpGrant): boolean {
  return (grant.mcpServers?.length ?? 0) > 0;
}

/**
 * The server is open to this caller: it lists neither groups nor teams, or it lists the caller's group, or
 * the team the caller's key belongs to (a personal key of the same user is not a team key).
 */
export function openToCaller(caller: Pick<Caller, "group" | "team">, entry: Pick<McpServerEntry, "groups" | "teams">): boolean {
  if (entry.groups.length === 0 && entry.teams.length === 0) return true;
  if (entry.groups.includes(caller.group)) return true;
  return caller.team !== null && entry.teams.includes(caller.team.id);
}

/** The server may be used by this caller: enabled, open to its group or team, and on its token's list. */
export function serverAllowed(caller: Caller, entry: McpServerEntry): boolean {
  if (!entry.enabled) return false;
  if (!openToCaller(caller, entry)) return false;
  const listed = caller.token.mcpServers ?? [];
  return listed.includes("*") || listed.includes(entry.name);
}

/** The tool is on the token's tool list (an empty list allows every tool of the servers it may use). */
export function toolAllowed(grant: McpGrant, server: string, tool: string): boolean {
  const patterns = grant.mcpTools ?? [];
  if (patterns.length === 0) return true;
  const name = `${server}${NAMESPACE_SEPARATOR}${tool}`;
  return patterns.includes(name) || patterns.includes(`${server}${NAMESPACE_SEPARATOR}*`);
}

/** `server__tool` -> its parts; null when the name carries no server. */
export function splitNamespaced(name: string): { server: string; item: string } | null {
  const at = name.indexOf(NAMESPACE_SEPARATOR);
  if (at <= 0 || at + NAMESPACE_SEPARATOR.length >= name.length) return null;
  return { server: name.slice(0, at), item: name.slice(at + NAMESPACE_SEPARATOR.length) };
}
