import { z } from "zod";
import { responseCacheScopeSchema, responseCacheTtlSchema } from "../values/response-cache-schemas";
import { pageQuerySchema } from "../values/page-query";
import { expirySchema } from "../values/expiry";
import { periodAndAccessFields } from "../values/limit-fields";
import { groupSchema, nameSchema, recordIdSchema, usdLimitSchema } from "../values/value-schemas";

/** The limits a token write may set; null means "none" (never expires, unlimited, no limit, owner's group). */
const tokenFields = z.object({
  name: nameSchema,
  group: groupSchema.nullable(),
  /** ISO 8601; null or "never": no expiry. */
  expiresAt: expirySchema,
  /** USD; null or "unlimited": no quota. In all, or in each period with a budgetPeriod. */
  quotaLimit: usdLimitSchema,
  ...periodAndAccessFields,
  /** Seconds answers stay in the exact response cache for the token's calls; null: off (a call may still ask). */
  responseCacheTtlSeconds: responseCacheTtlSchema.nullable(),
  /** Whose calls share cached answers: the owner's (user), the token's alone, or the routing group's (administrators only). */
  responseCacheScope: responseCacheScopeSchema,
});

export const createTokenSchema = tokenFields
  .partial({
    group: true,
    expiresAt: true,
    quotaLimit: true,
    budgetPeriod: true,
    budgetTimeZone: true,
    alertThresholds: true,
    allowedModels: true,
    allowedIps: true,
    rpmLimit: true,
    tpmLimit: true,
    responseCacheTtlSeconds: true,
    responseCacheScope: true,
  })
  .extend({
    /** The owner; omitted, the actor. Only administrators (and a team's admins, for its members) create tokens for others. */
    userId: recordIdSchema.optional(),
    /** The team the token belongs to (its spend also counts against the team's budget and limits); omitted: personal. */
    teamId: recordIdSchema.nullable().optional(),
  });

export const updateTokenSchema = tokenFields.partial().extend({
  id: recordIdSchema,
  status: z.enum(["enabled", "disabled"]).optional(),
});

/** One owner's tokens (administrators only for others), searched by name, key prefix or owner, a page at a time. */
export const listTokensSchema = pageQuerySchema.extend({ userId: recordIdSchema.optional(), teamId: recordIdSchema.optional() });

/** Whose account limits to show: omitted, the actor's own. */
export const ownerLimitsSchema = z.object({ userId: recordIdSchema.optional() }).default({});

export type CreateTokenInput = z.output<typeof createTokenSchema>;
export type UpdateTokenInput = z.output<typeof updateTokenSchema>;

/** Longest grace period a roll may give the secret it replaces: 30 days. */
export const MAX_ROLL_GRACE_SECONDS = 30 * 24 * 3600;

export const rollTokenSchema = z.object({
  id: recordIdSchema,
  /** How long the replaced secret keeps working, in seconds; 0 refuses it at once. Default 24 h. */
  graceSeconds: z.number().int().min(0).max(MAX_ROLL_GRACE_SECONDS).default(24 * 3600),
});

export type RollTokenInput = z.input<typeof rollTokenSchema>;
