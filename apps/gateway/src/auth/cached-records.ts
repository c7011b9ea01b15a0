import { type Database, teamBudgetSelection, teams, tokens, userBudgetSelection, userLimitSelection, users } from "@tollgate/db";
import { eq, or } from "drizzle-orm";
import { isBudgetPeriod } from "@tollgate/shared";
import type { BudgetFields } from "../accounting/budget-view";
import { createIpAllowList, type IpAllowList } from "../policy/ip-allow-list";

/** What the hot path needs of a token, pre-parsed once per load. */
/** What a token and a user may limit alike (each documented where it means something of its own). */
interface AccessLimitFields {
  allowedModels: Set<string> | null;
  ipAllowList: IpAllowList | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
}

export interface CachedToken extends BudgetFields, AccessLimitFields {
  id: number;
  userId: number;
  /** The team whose budget and limits bind the token besides its owner's; null for a personal token. */
  teamId: number | null;
  name: string;
  keyHash: string;
  enabled: boolean;
  group: string | null;
  /** Epoch ms, or null for never. */
  expiresAt: number | null;
  /** Micro-USD, in all or per period (budgetPeriod); null means unlimited. */
  quotaLimit: number | null;
  /** Lifetime spend, as last read from or written to the database (this process's unflushed spend is in the ledger). */
  usedQuota: number;
  /** Null means every model. */
  allowedModels: Set<string> | null;
  /** Null means every source address. */
  ipAllowList: IpAllowList | null;
  rpmLimit: number | null;
  /** Tokens (prompt + completion) per minute; null means no limit, and no work on the hot path. */
  tpmLimit: number | null;
  /**
   * Loaded by the secret a roll replaced: it is refused from this instant (epoch ms), checked from memory
   * so that the grace period ends on time on every instance, notified or not.
   */
  secretRetiresAt: number | null;
  /** Spend-alert thresholds (percent); null: the setting's. */
  alertThresholds: number[] | null;
  /** MCP servers the token may use through /mcp (`*`: every one its group may); empty or absent: none. */
  mcpServers?: readonly string[];
  /** MCP tools it may call (`server__tool`, `server__*`); empty or absent: every tool of those servers. */
  mcpTools?: readonly string[];
  /** Seconds answers stay in the response cache for this token's calls; null: off unless a call asks for it. */
  responseCacheTtlSeconds: number | null;
  /** Whose calls share cached answers: the owner's (user), this token's, or the routing group's. */
  responseCacheScope: "user" | "token" | "team" | "group";
}

export interface CachedUser extends BudgetFields, AccessLimitFields {
  id: number;
  name: string;
  enabled: boolean;
  group: string;
  balance: number;
  balanceUnlimited: boolean;
  /** Micro-USD the user's tokens together may spend, in all or per period; null means no budget. */
  budgetLimit: number | null;
  /** Lifetime spend, as last read or written. */
  usedTotal: number;
  /** Models every token of the user is limited to (a token's own list narrows it further); null means no user-level restriction. */
  allowedModels: Set<string> | null;
  /** Source addresses every token of the user is limited to; null means any. */
  ipAllowList: IpAllowList | null;
  /** Requests per minute across all of the user's tokens together; null means no user-level limit. */
  rpmLimit: number | null;
  /** Tokens per minute across all of the user's tokens together; null means no user-level limit. */
  tpmLimit: number | null;
  /** The rate limiters' key for the user's shared counts (`u{id}`), made once per load, not per request. */
  rateLimitKey: string;
}

/** A team as the hot path needs it: its budget and the limits that bind all of its tokens together. */
export interface CachedTeam extends BudgetFields, AccessLimitFields {
  id: number;
  name: string;
  enabled: boolean;
  /** Micro-USD the team's tokens together may spend, in all or per period; null means no budget. */
  budgetLimit: number | null;
  /** Lifetime spend, as last read or written. */
  usedTotal: number;
  /** The rate limiters' key for the team's shared counts (`t{id}`), made once per load. */
  rateLimitKey: string;
}

export async function loadTeamById(db: Database, id: number): Promise<CachedTeam | null> {
  const [row] = await db
    .select({
      id: teams.id,
      name: teams.name,
      status: teams.status,
      ...teamBudgetSelection,
      allowedModels: teams.allowedModels,
      allowedIps: teams.allowedIps,
      rpmLimit: teams.rpmLimit,
      tpmLimit: teams.tpmLimit,
    })
    .from(teams)
    .where(eq(teams.id, id))
    .limit(1);
  if (!row) return null;
  return budgetHolderFields(row, `t${row.id}`);
}

export async function loadTokenByHash(db: Database, keyHash: string): Promise<CachedToken | null> {
  const [row] = await db
    .select()
    .from(tokens)
    .where(or(eq(tokens.keyHash, keyHash), eq(tokens.previousKeyHash, keyHash)))
    .limit(1);
  if (!row) return null;
  let secretRetiresAt: number | null = null;
  if (row.keyHash !== keyHash) {
    secretRetiresAt = row.previousKeyExpiresAt?.getTime() ?? 0;
    if (secretRetiresAt <= Date.now()) return null;
  }
  return {
    id: row.id,
    userId: row.userId,
    teamId: row.teamId,
    name: row.name,
    keyHash: row.keyHash,
    enabled: row.status === "enabled",
    group: row.group,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    quotaLimit: row.quotaLimit,
    usedQuota: row.usedQuota,
    secretRetiresAt,
    alertThresholds: row.alertThresholds,
    mcpServers: row.mcpServers,
    mcpTools: row.mcpTools,
    responseCacheTtlSeconds: row.responseCacheTtlSeconds,
    responseCacheScope: row.responseCacheScope,
    ...accessLimitFields(row),
    ...budgetFields(row),
  };
}

export async function loadUserById(db: Database, id: number): Promise<CachedUser | null> {
  const [row] = await db
    .select({
      id: users.id,
      name: users.name,
      status: users.status,
      group: users.group,
      balance: users.balance,
      balanceUnlimited: users.balanceUnlimited,
      ...userBudgetSelection,
      ...userLimitSelection,
    })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  if (!row) return null;
  return { ...budgetHolderFields(row, `u${row.id}`), group: row.group, balance: row.balance, balanceUnlimited: row.balanceUnlimited };
}

type BudgetHolderRow = Parameters<typeof accessLimitFields>[0] &
  Parameters<typeof budgetFields>[0] & { id: number; name: string; status: string; budgetLimit: number | null; usedTotal: number };

/** What a user and a team share as cached: a budget shared by many tokens, access limits, a rate-limit key of their own. */
function budgetHolderFields(row: BudgetHolderRow, rateLimitKey: string): CachedTeam {
  return {
    id: row.id,
    name: row.name,
    enabled: row.status === "enabled",
    budgetLimit: row.budgetLimit,
    usedTotal: row.usedTotal,
    rateLimitKey,
    ...accessLimitFields(row),
    ...budgetFields(row),
  };
}

/** A token's or a user's model list, address list and rate limits, pre-parsed once per load (empty lists: no limit). */
function accessLimitFields(row: { allowedModels: string[]; allowedIps: string[]; rpmLimit: number | null; tpmLimit: number | null }): AccessLimitFields {
  return {
    allowedModels: row.allowedModels.length > 0 ? new Set(row.allowedModels) : null,
    ipAllowList: row.allowedIps.length > 0 ? createIpAllowList(row.allowedIps) : null,
    rpmLimit: row.rpmLimit,
    tpmLimit: row.tpmLimit,
  };
}

function budgetFields(row: { budgetPeriod: string; budgetTimeZone: string; periodStart: Date | null; periodUsed: number }): BudgetFields {
  return {
    budgetPeriod: isBudgetPeriod(row.budgetPeriod) ? row.budgetPeriod : "none",
    budgetTimeZone: row.budgetTimeZone,
    periodStart: row.periodStart ? row.periodStart.getTime() : null,
    periodUsed: row.periodUsed,
  };
}
