import { bigint, bigserial, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { accessLimitColumns } from "../access-limit-columns";
import { budgetColumns } from "../budget-columns";
import { users } from "./users";

/**
 * A team: members (team admins and members), tokens that belong to it (service keys, or a member's keys
 * made for the team), a budget with a period and access limits that bind every token of the team together,
 * nested inside each token's own limits and its owner's (the tighter one wins).
 */
export const teams = pgTable("teams", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  /**
   * The identity provider's group (OIDC groups claim) whose members sign in as members of this team; null:
   * memberships are managed by hand only.
   */
  oidcGroup: text("oidc_group").unique(),
  /** Most the team's tokens together may spend, in micro-USD, in all or in each period; null means no budget. */
  budgetLimit: bigint("budget_limit", { mode: "number" }),
  /** Spend of the team's tokens over the team's whole life in micro-USD, written behind by the gateways. */
  usedTotal: bigint("used_total", { mode: "number" }).notNull().default(0),
  ...budgetColumns(),
  ...accessLimitColumns(),
  status: text("status", { enum: ["enabled", "disabled"] }).notNull().default("enabled"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Who belongs to a team and as what: a team admin manages the team's tokens and members, a member uses them. */
export const teamMembers = pgTable(
  "team_members",
  {
    teamId: bigint("team_id", { mode: "number" }).notNull().references(() => teams.id, { onDelete: "cascade" }),
    userId: bigint("user_id", { mode: "number" }).notNull().references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["team_admin", "member"] }).notNull().default("member"),
    /** `manual` (console, CLI) or `oidc` (from the groups claim at sign-in, which may also remove it). */
    source: text("source", { enum: ["manual", "oidc"] }).notNull().default("manual"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.teamId, table.userId] }), index("team_members_user_idx").on(table.userId)],
);

/** A team's budget as selected with the team. */
export const teamBudgetSelection = {
  budgetLimit: teams.budgetLimit,
  usedTotal: teams.usedTotal,
  budgetPeriod: teams.budgetPeriod,
  budgetTimeZone: teams.budgetTimeZone,
  periodStart: teams.periodStart,
  periodUsed: teams.periodUsed,
};
