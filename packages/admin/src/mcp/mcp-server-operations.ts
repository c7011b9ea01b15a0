import { type Database, mcpServers, requestLogs, teams, tokens } from "@tollgate/db";
import { DEFAULT_UPSTREAM_ADDRESS_POLICY, mcpServerCredentialBinding, type SecretBox, type UpstreamAddressPolicy, upstreamAddressRefusal } from "@tollgate/shared";
import { type McpProbeResult, type McpServerToConnect, probeMcpServer } from "@tollgate/upstream/mcp";
import { and, asc, eq, gte, inArray, sql } from "drizzle-orm";
import { AdminError } from "../admin-error";
import { recordAudit } from "../audit/record-audit";
import { insertWithDrawnId } from "../values/insert-with-drawn-id";
import { maskKey } from "../mask-key";
import type { Actor } from "../actor";
import { requireTeamAdmin, unknownTeam } from "../teams/team-access";
import type { CreateMcpServerInput, TokenMcpAccessInput, UpdateMcpServerInput } from "./mcp-server-schemas";

type McpServerRow = typeof mcpServers.$inferSelect;

/** An MCP server as the console and the CLI show it: the credential only masked. */
export type McpServerView = Omit<McpServerRow, "credentialEncrypted"> & {
  /** The credential's last characters; null when there is none or it cannot be opened with this TOLLGATE_SECRET. */
  credentialMasked: string | null;
};

function unknownServer(reference: string | number): AdminError {
  return new AdminError("not_found", `Unknown MCP server ${JSON.stringify(String(reference))}`);
}

async function openCredential(secretBox: SecretBox, row: McpServerRow): Promise<string | null> {
  if (row.credentialEncrypted === null) return null;
  return secretBox.decrypt(row.credentialEncrypted, mcpServerCredentialBinding(row.id));
}

async function toView(secretBox: SecretBox, row: McpServerRow): Promise<McpServerView> {
  const { credentialEncrypted: _sealed, ...view } = row;
  let credentialMasked: string | null = null;
  try {
    const credential = await openCredential(secretBox, row);
    credentialMasked = credential === null ? null : maskKey(credential);
  } catch {
    // Sealed with another TOLLGATE_SECRET: listed without its credential.
  }
  return { ...view, credentialMasked };
}

/** A server by id, or by name (the CLI's `mcp test NAME_OR_ID`). */
async function loadServer(db: Database, reference: number | string): Promise<McpServerRow> {
  const byId = typeof reference === "number" || /^\d+$/.test(reference);
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(byId ? eq(mcpServers.id, Number(reference)) : eq(mcpServers.name, String(reference)))
    .limit(1);
  if (!row) throw unknownServer(reference);
  return row;
}

function checkUrlAllowed(url: string | null | undefined, policy: UpstreamAddressPolicy): void {
  if (url === null || url === undefined) return;
  const refusal = upstreamAddressRefusal(url, policy);
  if (refusal !== null) throw new AdminError("invalid_input", refusal, { field: "url" });
}

async function checkNameFree(db: Database, name: string, exceptId: number | null): Promise<void> {
  const [taken] = await db.select({ id: mcpServers.id }).from(mcpServers).where(eq(mcpServers.name, name)).limit(1);
  if (taken && taken.id !== exceptId) throw new AdminError("invalid_input", `An MCP server named ${name} exists already`, { field: "name" });
}

/** Every team a server is opened to exists (a deleted team's id left in a list opens the server to nobody). */
async function checkTeamsExist(db: Database, teamIds: readonly number[] | undefined): Promise<void> {
  if (teamIds === undefined || teamIds.length === 0) return;
  const found = await db.select({ id: teams.id }).from(teams).where(inArray(teams.id, [...teamIds]));
  const known = new Set(found.map((row) => row.id));
  const missing = teamIds.find((id) => !known.has(id));
  if (missing !== undefined) throw unknownTeam(missing, { field: "teams" });
}

export async function listMcpServers(db: Database, secretBox: SecretBox): Promise<McpServerView[]> {
  const rows = await db.select().from(mcpServers).orderBy(asc(mcpServers.id));
  return Promise.all(rows.map((row) => toView(secretBox, row)));
}

export async function getMcpServer(db: Database, secretBox: SecretBox, reference: number | string): Promise<McpServerView> {
  return toView(secretBox, await loadServer(db, reference));
}

/** Registers a server, its credential sealed for its own row (the id is drawn first, so the row is written once). */
export async function createMcpServer(
  db: Database,
  actor: Actor,
  secretBox: SecretBox,
  input: CreateMcpServerInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<McpServerView> {
  const { credential, ...fields } = input;
  checkUrlAllowed(fields.url, policy);
  await checkNameFree(db, fields.name, null);
  await checkTeamsExist(db, fields.teams);
  const id = await insertWithDrawnId(db, "mcp_servers", async (transaction, id) => {
    const credentialEncrypted = credential ? await secretBox.encrypt(credential, mcpServerCredentialBinding(id)) : null;
    await transaction.insert(mcpServers).values({
      ...fields,
      url: fields.transport === "stdio" ? null : (fields.url ?? null),
      command: fields.transport === "stdio" ? (fields.command ?? null) : null,
      id,
      credentialEncrypted,
    });
    await recordAudit(transaction, actor, { action: "mcp_server.create", objectType: "mcp_server", objectId: id, before: null, after: { ...fields, id, credentialEncrypted } });
  });
  return getMcpServer(db, secretBox, id);
}

/**
 * Changes what the input names. A credential stays with its server's address: changing the URL (its origin)
 * or the transport without giving the credential again drops it, so that it is never sent to another host.
 */
export async function updateMcpServer(
  db: Database,
  actor: Actor,
  secretBox: SecretBox,
  input: UpdateMcpServerInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<McpServerView> {
  const { id, credential, ...changes } = input;
  const current = await loadServer(db, id);
  checkUrlAllowed(changes.url, policy);
  if (changes.name !== undefined) await checkNameFree(db, changes.name, id);
  await checkTeamsExist(db, changes.teams);
  const transport = changes.transport ?? current.transport;
  const url = changes.url === undefined ? current.url : changes.url;
  const command = changes.command === undefined ? current.command : changes.command;
  if (transport === "stdio" && (command === null || command.length === 0)) throw new AdminError("invalid_input", "Is required for a stdio server", { field: "command" });
  if (transport !== "stdio" && url === null) throw new AdminError("invalid_input", `Is required for a ${transport} server`, { field: "url" });
  const moved = transport !== current.transport || (url !== null && current.url !== null && new URL(url).origin !== new URL(current.url).origin);
  let credentialEncrypted = current.credentialEncrypted;
  if (credential !== undefined) credentialEncrypted = credential === null ? null : await secretBox.encrypt(credential, mcpServerCredentialBinding(id));
  else if (moved) credentialEncrypted = null;
  await db.transaction(async (transaction) => {
    const [after] = await transaction
    .update(mcpServers)
    .set({
      ...changes,
      url: transport === "stdio" ? null : url,
      command: transport === "stdio" ? command : null,
      credentialEncrypted,
      // An edit by hand ends a cool-down: the admin fixed what failed, or wants it tried again.
      cooldownUntil: null,
      updatedAt: new Date(),
    })
    .where(eq(mcpServers.id, id))
    .returning();
    await recordAudit(transaction, actor, { action: "mcp_server.update", objectType: "mcp_server", objectId: id, before: current, after });
  });
  return getMcpServer(db, secretBox, id);
}

export async function deleteMcpServer(db: Database, actor: Actor, reference: number | string): Promise<{ id: number; name: string }> {
  const row = await loadServer(db, reference);
  await db.transaction(async (transaction) => {
    const [deleted] = await transaction.delete(mcpServers).where(eq(mcpServers.id, row.id)).returning();
    await recordAudit(transaction, actor, { action: "mcp_server.delete", objectType: "mcp_server", objectId: row.id, before: deleted ?? row, after: null });
  });
  return { id: row.id, name: row.name };
}

/** The server as a client connects to it, its credential opened (for Test; the gateway loads its own). */
export async function mcpServerToConnect(secretBox: SecretBox, row: McpServerRow): Promise<McpServerToConnect> {
  return {
    name: row.name,
    transport: row.transport,
    url: row.url,
    command: row.command,
    credentialHeader: row.credentialHeader,
    credential: await openCredential(secretBox, row),
  };
}

/** "Test": connects to the server, initializes it and lists its tools; the credential is never in the answer. */
export async function testMcpServer(
  db: Database,
  actor: Actor,
  secretBox: SecretBox,
  reference: number | string,
  options: { stdioEnabled: boolean },
): Promise<McpProbeResult & { id: number; name: string }> {
  const row = await loadServer(db, reference);
  let server: McpServerToConnect | null = null;
  try {
    server = await mcpServerToConnect(secretBox, row);
  } catch {
    // Reported below, as the test's outcome.
  }
  const result: McpProbeResult & { id: number; name: string } =
    server === null
      ? { id: row.id, name: row.name, ok: false, latencyMs: 0, serverInfo: null, tools: [], error: "The credential cannot be opened with this TOLLGATE_SECRET; set it again." }
      : { id: row.id, name: row.name, ...(await probeMcpServer(server, options)) };
  // A test connects out with the stored credential: who did it, and what it found, is worth a row.
  const outcome = { ok: result.ok, error: result.error, tools: result.tools.length };
  await db.transaction((transaction) => recordAudit(transaction, actor, { action: "mcp_server.test", objectType: "mcp_server", objectId: row.id, before: null, after: outcome }));
  return result;
}

export interface McpServerUsage {
  server: string;
  calls: number;
  errors: number;
  /** Micro-USD. */
  cost: number;
  responseBytes: number;
  averageLatencyMs: number;
  /** Tools by calls, most called first. */
  tools: { tool: string; calls: number; errors: number }[];
}

/**
 * Calls per server and tool over the last `hours`, from the request log (endpoint `mcp`, model `server__tool`);
 * with `teamId`, only the calls made with that team's keys.
 */
export async function mcpServerUsage(db: Database, hours = 24, teamId: number | null = null): Promise<McpServerUsage[]> {
  const since = new Date(Date.now() - hours * 3_600_000);
  const ofTeam = teamId === null ? undefined : inArray(requestLogs.tokenId, db.select({ id: tokens.id }).from(tokens).where(eq(tokens.teamId, teamId)));
  const rows = await db
    .select({
      model: requestLogs.model,
      calls: sql<number>`count(*)::int`,
      errors: sql<number>`count(*) filter (where ${requestLogs.status} >= 400 or ${requestLogs.errorCode} is not null)::int`,
      cost: sql<number>`coalesce(sum(${requestLogs.cost}), 0)::bigint`,
      bytes: sql<number>`coalesce(sum(${requestLogs.responseBytes}), 0)::bigint`,
      latency: sql<number>`coalesce(sum(${requestLogs.latencyMs}), 0)::bigint`,
    })
    .from(requestLogs)
    .where(and(eq(requestLogs.endpoint, "mcp"), gte(requestLogs.createdAt, since), ofTeam))
    .groupBy(requestLogs.model);
  const byServer = new Map<string, McpServerUsage & { latencyTotal: number }>();
  for (const row of rows) {
    const split = row.model.indexOf("__");
    const server = split === -1 ? row.model : row.model.slice(0, split);
    const tool = split === -1 ? "" : row.model.slice(split + 2);
    const entry = byServer.get(server) ?? { server, calls: 0, errors: 0, cost: 0, responseBytes: 0, averageLatencyMs: 0, latencyTotal: 0, tools: [] };
    entry.calls += Number(row.calls);
    entry.errors += Number(row.errors);
    entry.cost += Number(row.cost);
    entry.responseBytes += Number(row.bytes);
    entry.latencyTotal += Number(row.latency);
    entry.tools.push({ tool, calls: Number(row.calls), errors: Number(row.errors) });
    byServer.set(server, entry);
  }
  return [...byServer.values()]
    .map(({ latencyTotal, ...usage }) => ({
      ...usage,
      averageLatencyMs: usage.calls === 0 ? 0 : Math.round(latencyTotal / usage.calls),
      tools: usage.tools.sort((a, b) => b.calls - a.calls),
    }))
    .sort((a, b) => b.calls - a.calls);
}

/** MCP usage of one team's keys over the last `hours`: for an administrator and the team's admins only. */
export async function teamMcpUsage(db: Database, actor: Actor, teamId: number, hours = 24): Promise<McpServerUsage[]> {
  await requireTeamAdmin(db, actor, teamId);
  return mcpServerUsage(db, hours, teamId);
}

/** Sets a token's MCP access (administrators only: an owner cannot widen what its token reaches). */
export async function setTokenMcpAccess(db: Database, actor: Actor, input: TokenMcpAccessInput): Promise<{ id: number; mcpServers: string[]; mcpTools: string[] }> {
  const changes: { mcpServers?: string[]; mcpTools?: string[]; updatedAt: Date } = { updatedAt: new Date() };
  if (input.mcpServers !== undefined) changes.mcpServers = input.mcpServers;
  if (input.mcpTools !== undefined) changes.mcpTools = input.mcpTools;
  return db.transaction(async (transaction) => {
    const access = { id: tokens.id, mcpServers: tokens.mcpServers, mcpTools: tokens.mcpTools };
    const [before] = await transaction.select(access).from(tokens).where(eq(tokens.id, input.id)).for("update").limit(1);
    const [row] = await transaction.update(tokens).set(changes).where(eq(tokens.id, input.id)).returning(access);
    if (!row) throw new AdminError("not_found", `Unknown token id ${input.id}`);
    await recordAudit(transaction, actor, { action: "token.mcp_access", objectType: "token", objectId: row.id, before: before ?? null, after: row });
    return row;
  });
}

/** A token's MCP access (the token form's MCP section). */
export async function getTokenMcpAccess(db: Database, id: number): Promise<{ id: number; mcpServers: string[]; mcpTools: string[] }> {
  const [row] = await db.select({ id: tokens.id, mcpServers: tokens.mcpServers, mcpTools: tokens.mcpTools }).from(tokens).where(eq(tokens.id, id));
  if (!row) throw new AdminError("not_found", `Unknown token id ${id}`);
  return row;
}
