import { z } from "zod";
import { periodAndAccessFields } from "../values/limit-fields";
import { nameSchema, recordIdSchema, usdLimitSchema } from "../values/value-schemas";

/** A team's name: not only digits (the CLI reads digits as an id). */
export const teamNameSchema = nameSchema.refine((value) => !/^\d+$/.test(value), "Must not be only digits (it would read as a team id)");

export const teamRoleSchema = z.enum(["team_admin", "member"], { error: 'Must be "team_admin" or "member"' });
export type TeamRole = z.output<typeof teamRoleSchema>;

/** The identity provider's group mapped to the team; null: none (memberships by hand only). */
const oidcGroupSchema = z.string({ error: "Must be text" }).trim().min(1, "Must not be empty").max(200, "Must be at most 200 characters").nullable();

/** The limits and budget of a team, binding all of its tokens together (nested inside each token's and owner's). */
const teamLimitFields = {
  description: z.string({ error: "Must be text" }).trim().max(500, "Must be at most 500 characters"),
  oidcGroup: oidcGroupSchema,
  /** USD the team's tokens together may spend, in all or per budgetPeriod; null or "unlimited": no budget. */
  budget: usdLimitSchema,
  /** Period, model and IP lists, and per-minute limits of all of the team's tokens together. */
  ...periodAndAccessFields,
};

export const createTeamSchema = z.object({
  name: teamNameSchema,
  description: teamLimitFields.description.default(""),
  oidcGroup: teamLimitFields.oidcGroup.default(null),
  budget: teamLimitFields.budget.default(null),
  budgetPeriod: teamLimitFields.budgetPeriod.default("none"),
  budgetTimeZone: teamLimitFields.budgetTimeZone.default("UTC"),
  alertThresholds: teamLimitFields.alertThresholds.default(null),
  allowedModels: teamLimitFields.allowedModels.default([]),
  allowedIps: teamLimitFields.allowedIps.default([]),
  rpmLimit: teamLimitFields.rpmLimit.default(null),
  tpmLimit: teamLimitFields.tpmLimit.default(null),
});

export const updateTeamSchema = z.object({
  id: recordIdSchema,
  name: teamNameSchema.optional(),
  status: z.enum(["enabled", "disabled"], { error: 'Must be "enabled" or "disabled"' }).optional(),
  description: teamLimitFields.description.optional(),
  oidcGroup: teamLimitFields.oidcGroup.optional(),
  budget: teamLimitFields.budget.optional(),
  budgetPeriod: teamLimitFields.budgetPeriod.optional(),
  budgetTimeZone: teamLimitFields.budgetTimeZone.optional(),
  alertThresholds: teamLimitFields.alertThresholds.optional(),
  allowedModels: teamLimitFields.allowedModels.optional(),
  allowedIps: teamLimitFields.allowedIps.optional(),
  rpmLimit: teamLimitFields.rpmLimit.optional(),
  tpmLimit: teamLimitFields.tpmLimit.optional(),
});

export const addTeamMemberSchema = z.object({
  teamId: recordIdSchema,
  userId: recordIdSchema,
  role: teamRoleSchema.default("member"),
});

export const removeTeamMemberSchema = z.object({ teamId: recordIdSchema, userId: recordIdSchema });

export type CreateTeamInput = z.output<typeof createTeamSchema>;
export type UpdateTeamInput = z.output<typeof updateTeamSchema>;
export type AddTeamMemberInput = z.output<typeof addTeamMemberSchema>;
export type RemoveTeamMemberInput = z.output<typeof removeTeamMemberSchema>;
