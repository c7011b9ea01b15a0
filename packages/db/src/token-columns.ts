import { tokens, users } from "./schema";

/**
 * The columns of a token any interface may show, with its owner's name (join users on tokens.user_id):
 * every column except key_hash, so neither a secret nor its hash leaves the server.
 */
export const tokenPublicColumns = {
  id: tokens.id,
  userId: tokens.userId,
  userName: users.name,
  teamId: tokens.teamId,
  name: tokens.name,
  keyPrefix: tokens.keyPrefix,
  status: tokens.status,
  group: tokens.group,
  expiresAt: tokens.expiresAt,
  quotaLimit: tokens.quotaLimit,
  usedQuota: tokens.usedQuota,
  budgetPeriod: tokens.budgetPeriod,
  budgetTimeZone: tokens.budgetTimeZone,
  periodStart: tokens.periodStart,
  periodUsed: tokens.periodUsed,
  alertThresholds: tokens.alertThresholds,
  allowedModels: tokens.allowedModels,
  allowedIps: tokens.allowedIps,
  rpmLimit: tokens.rpmLimit,
  tpmLimit: tokens.tpmLimit,
  lastUsedAt: tokens.lastUsedAt,
  previousKeyPrefix: tokens.previousKeyPrefix,
  previousKeyExpiresAt: tokens.previousKeyExpiresAt,
  previousKeyLastUsedAt: tokens.previousKeyLastUsedAt,
  rolledAt: tokens.rolledAt,
  createdAt: tokens.createdAt,
  responseCacheTtlSeconds: tokens.responseCacheTtlSeconds,
  responseCacheScope: tokens.responseCacheScope,
};
