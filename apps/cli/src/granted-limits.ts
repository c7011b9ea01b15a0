import { type TokenGrantedLimits, tokens } from "@tollgate/db";
import { type SQL, sql } from "drizzle-orm";

/** Limits a CLI command writes on a token; an absent one is not part of the write. */
export interface TokenLimitValues {
  quotaLimit?: number | null;
  expiresAt?: Date | null;
  allowedModels?: string[];
  allowedIps?: string[];
  rpmLimit?: number | null;
  tpmLimit?: number | null;
  status?: "enabled" | "disabled";
}

/**
 * The CLI is an administrator's tool: every limit it writes is also the ceiling up to which the token's
 * owner may edit it in the console (null or empty: no ceiling), and a token it disables stays disabled until
 * an administrator enables it. The console applies the same rule to its administrators' writes.
 */
export function grantedLimitsOf(values: TokenLimitValues): TokenGrantedLimits {
  const granted: TokenGrantedLimits = {};
  if (values.quotaLimit !== undefined) granted.quotaLimit = values.quotaLimit;
  if (values.expiresAt !== undefined) granted.expiresAt = values.expiresAt?.toISOString() ?? null;
  if (values.allowedModels !== undefined) granted.allowedModels = values.allowedModels;
  if (values.allowedIps !== undefined) granted.allowedIps = values.allowedIps;
  if (values.rpmLimit !== undefined) granted.rpmLimit = values.rpmLimit;
  if (values.tpmLimit !== undefined) granted.tpmLimit = values.tpmLimit;
  if (values.status !== undefined) granted.disabled = values.status === "disabled";
  return granted;
}

/** `granted_limits` merged with the ceilings of this write, in the UPDATE itself. */
export function mergeGrantedLimits(values: TokenLimitValues): SQL {
  return sql`${tokens.grantedLimits} || ${JSON.stringify(grantedLimitsOf(values))}::jsonb`;
}
