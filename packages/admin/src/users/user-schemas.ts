import { z } from "zod";
import { alertThresholdsSchema, budgetPeriodSchema, timeZoneSchema } from "../values/budget-schemas";
import { ipAllowListSchema } from "../values/ip-allow-list";
import {
  groupSchema,
  modelListSchema,
  passwordSchema,
  positiveIntSchema,
  positiveUsdSchema,
  recordIdSchema,
  requiredOr,
  usdLimitSchema,
  userNameSchema,
} from "../values/value-schemas";

const roleSchema = z.enum(["admin", "user"], { error: 'Must be "admin" or "user"' });

/**
 * The limits an administrator sets on a user, binding every token of the user, the ones the user creates
 * later included: a token can narrow them, never widen them.
 */
const userLimitFields = {
  /** Empty: no user-level restriction (each token's own list still applies). */
  allowedModels: modelListSchema,
  /** Empty: any source address. */
  allowedIps: ipAllowListSchema,
  /** Requests per minute across all of the user's tokens together; null is no limit. */
  rpmLimit: positiveIntSchema.nullable(),
  /** Tokens (prompt + completion) per minute across all of the user's tokens together; null is no limit. */
  tpmLimit: positiveIntSchema.nullable(),
  /** False: the user cannot create tokens (only an administrator can make them one). */
  mayCreateTokens: z.boolean({ error: "Must be true or false" }),
};

export const createUserSchema = z
  .object({
    name: userNameSchema,
    /** Omitted: the user cannot sign in to the console (an API-only account). */
    password: passwordSchema.optional(),
    role: roleSchema.default("user"),
    group: groupSchema.default("default"),
    /**
     * USD; null or "unlimited" (the default): spending is not limited by a balance. On a self-hosted
     * gateway spending is usually capped per token (its quota), and a prepaid balance is opt-in.
     */
    balance: usdLimitSchema.default(null),
    /** USD the user's tokens together may spend, in all or per budgetPeriod; null or "unlimited": no budget. */
    budget: usdLimitSchema.default(null),
    budgetPeriod: budgetPeriodSchema.default("none"),
    budgetTimeZone: timeZoneSchema.default("UTC"),
    /** Spend-alert thresholds in percent; null: the setting's; empty: none. */
    alertThresholds: alertThresholdsSchema.nullable().default(null),
    allowedModels: userLimitFields.allowedModels.default([]),
    allowedIps: userLimitFields.allowedIps.default([]),
    rpmLimit: userLimitFields.rpmLimit.default(null),
    tpmLimit: userLimitFields.tpmLimit.default(null),
    mayCreateTokens: userLimitFields.mayCreateTokens.default(true),
  })
  .superRefine((value, context) => {
    if (value.role === "admin" && value.password === undefined) {
      context.addIssue({ code: "custom", path: ["password"], message: "Must be set for an administrator" });
    }
  });

export const updateUserSchema = z.object({
  id: recordIdSchema,
  group: groupSchema.optional(),
  role: roleSchema.optional(),
  status: z.enum(["enabled", "disabled"], { error: 'Must be "enabled" or "disabled"' }).optional(),
  balanceUnlimited: z.boolean({ error: "Must be true or false" }).optional(),
  budget: usdLimitSchema.optional(),
  budgetPeriod: budgetPeriodSchema.optional(),
  budgetTimeZone: timeZoneSchema.optional(),
  alertThresholds: alertThresholdsSchema.nullable().optional(),
  allowedModels: userLimitFields.allowedModels.optional(),
  allowedIps: userLimitFields.allowedIps.optional(),
  rpmLimit: userLimitFields.rpmLimit.optional(),
  tpmLimit: userLimitFields.tpmLimit.optional(),
  mayCreateTokens: userLimitFields.mayCreateTokens.optional(),
});

export const topUpUserSchema = z.object({
  id: recordIdSchema,
  amount: positiveUsdSchema,
  /** Recorded in balance_logs; empty: "top-up". */
  reason: z
    .string({ error: "Must be text" })
    .trim()
    .max(200, "Must be at most 200 characters")
    .default("top-up")
    .transform((reason) => reason || "top-up"),
});

/**
 * Takes money off a user's balance (a correction, a refund reversed). The note is required: a subtraction
 * without a reason cannot be audited later. The balance may not go below zero unless `allowNegative` says
 * so explicitly (an overdraft an administrator means to grant); spending already can take it below zero.
 */
export const deductUserSchema = z.object({
  id: recordIdSchema,
  amount: positiveUsdSchema,
  reason: z
    .string({ error: requiredOr("Must say why the balance is lowered") })
    .trim()
    .min(1, "Must say why the balance is lowered")
    .max(200, "Must be at most 200 characters"),
  allowNegative: z.boolean({ error: "Must be true or false" }).default(false),
});

export const setPasswordSchema = z.object({ id: recordIdSchema, password: passwordSchema });

/** The first administrator, created from the console's first-run page. */
export const firstAdministratorSchema = z.object({
  name: userNameSchema,
  password: passwordSchema,
  /** The one-time code the server printed at start (see SetupCodes). */
  setupCode: z.string({ error: "Enter the setup code" }).trim().min(1, "Enter the setup code").max(100, "Too long for a setup code"),
});

export type CreateUserInput = z.output<typeof createUserSchema>;
export type UpdateUserInput = z.output<typeof updateUserSchema>;
export type TopUpUserInput = z.output<typeof topUpUserSchema>;
export type DeductUserInput = z.output<typeof deductUserSchema>;
