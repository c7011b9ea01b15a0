import { bigint, bigserial, boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accessLimitColumns } from "../access-limit-columns";
import { budgetColumns } from "../budget-columns";

export const users = pgTable("users", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  name: text("name").notNull().unique(),
  /** argon2id hash from Bun.password; null for users who never log in to the console (service accounts). */
  passwordHash: text("password_hash"),
  role: text("role", { enum: ["admin", "user"] }).notNull().default("user"),
  /** The OIDC issuer's `sub` for this user (single sign-on), unique; null for a user who never signed in that way. */
  oidcSubject: text("oidc_subject").unique(),
  /** Email address as the identity provider verified it; null when none was given or verified. */
  email: text("email"),
  /** Routing group: a token without its own group uses its owner's. */
  group: text("group").notNull().default("default"),
  /** Prepaid balance in micro-USD (1 USD = 1,000,000); spending lowers it. Ignored when balanceUnlimited. */
  balance: bigint("balance", { mode: "number" }).notNull().default(0),
  balanceUnlimited: boolean("balance_unlimited").notNull().default(false),
  /**
   * Most the user's tokens together may spend, in micro-USD, in all (budget_period `none`) or in each
   * period; null means no budget (the balance still applies). Independent of the balance: a budget caps
   * spending, a balance is money paid in.
   */
  budgetLimit: bigint("budget_limit", { mode: "number" }),
  /** Spend over the user's whole life in micro-USD, written behind (a lifetime budget counts against it). */
  usedTotal: bigint("used_total", { mode: "number" }).notNull().default(0),
  ...budgetColumns(),
  ...accessLimitColumns(),
  /** Whether the user may create tokens in the console; false leaves them only the tokens an administrator made. */
  mayCreateTokens: boolean("may_create_tokens").notNull().default(true),
  status: text("status", { enum: ["enabled", "disabled"] }).notNull().default("enabled"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Every change of a user's balance that is not spending: top-ups, refunds, manual corrections. */
export const balanceLogs = pgTable(
  "balance_logs",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    userId: bigint("user_id", { mode: "number" }).notNull().references(() => users.id, { onDelete: "cascade" }),
    /** Signed amount in micro-USD. */
    amount: bigint("amount", { mode: "number" }).notNull(),
    reason: text("reason").notNull().default(""),
    /** Who made the change (user id of an admin), null for the CLI. */
    actorId: bigint("actor_id", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("balance_logs_user_idx").on(table.userId, table.createdAt.desc())],
);


/** A user's budget as selected with the user (the columns of budgetColumns plus the limit and its lifetime spend). */
export const userBudgetSelection = {
  budgetLimit: users.budgetLimit,
  usedTotal: users.usedTotal,
  budgetPeriod: users.budgetPeriod,
  budgetTimeZone: users.budgetTimeZone,
  periodStart: users.periodStart,
  periodUsed: users.periodUsed,
};

/** The limits an administrator sets on a user, which bind every token of the user. */
export const userLimitSelection = {
  allowedModels: users.allowedModels,
  allowedIps: users.allowedIps,
  rpmLimit: users.rpmLimit,
  tpmLimit: users.tpmLimit,
};
