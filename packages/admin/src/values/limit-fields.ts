import { alertThresholdsSchema, budgetPeriodSchema, timeZoneSchema } from "./budget-schemas";
import { ipAllowListSchema } from "./ip-allow-list";
import { modelListSchema, positiveIntSchema } from "./value-schemas";

/**
 * The fields of a budget's period and of access limits that a token and a team set alike (each schema adds
 * its own limit amount: a token's quota, a team's budget). Null or empty means no limit at that level.
 */
export const periodAndAccessFields = {
  /** "none" (a lifetime total), "daily", "weekly" or "monthly". */
  budgetPeriod: budgetPeriodSchema,
  /** IANA zone whose midnight starts a period. */
  budgetTimeZone: timeZoneSchema,
  /** Spend-alert thresholds in percent; null: the setting's; empty: none. */
  alertThresholds: alertThresholdsSchema.nullable(),
  /** Empty: every model the routing group reaches (a narrower level's list still applies). */
  allowedModels: modelListSchema,
  /** Empty: any source address. */
  allowedIps: ipAllowListSchema,
  /** Requests per minute; null is no limit. */
  rpmLimit: positiveIntSchema.nullable(),
  /** Tokens (prompt + completion) per minute; null is no limit. */
  tpmLimit: positiveIntSchema.nullable(),
};
