import { type Database, tokens, users } from "@tollgate/db";
import { eq, or } from "drizzle-orm";
import { createIpAllowList, type IpAllowList } from "../policy/ip-allow-list";

/** What the hot path needs of a token, pre-parsed once per load. */
export interface CachedToken {
  id: number;
  userId: number;
  name: string;
  keyHash: string;
  enabled: boolean;
  group: string | null;
  /** Epoch ms, or null for never. */
  expiresAt: number | null;
  quotaLimit: number | null;
  /** As last read from or written to the database (this process's unflushed spend is in the ledger). */
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
}

export interface CachedUser {
  id: number;
  name: string;
  enabled: boolean;
  group: string;
  balance: number;
  balanceUnlimited: boolean;
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
    name: row.name,
    keyHash: row.keyHash,
    enabled: row.status === "enabled",
    group: row.group,
    expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
    quotaLimit: row.quotaLimit,
    usedQuota: row.usedQuota,
    allowedModels: row.allowedModels.length > 0 ? new Set(row.allowedModels) : null,
    ipAllowList: row.allowedIps.length > 0 ? createIpAllowList(row.allowedIps) : null,
    rpmLimit: row.rpmLimit,
    tpmLimit: row.tpmLimit,
    secretRetiresAt,
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
    })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    enabled: row.status === "enabled",
    group: row.group,
    balance: row.balance,
    balanceUnlimited: row.balanceUnlimited,
  };
}
