import { balanceLogs, type Database, isUniqueViolation, sessions, settings, userBudgetSelection, userLimitSelection, users } from "@tollgate/db";
import { and, asc, count, desc, eq, ilike, ne, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Actor } from "../actor";
import { AdminError, unknownUser } from "../admin-error";
import { readSetupNonce, SETUP_NONCE_KEY, type SetupCodes } from "../onboarding/setup-code";
import { budgetStatus, periodResetFor } from "../values/budget-status";
import { findByNameOrId } from "../values/find-by-name-or-id";
import { containsPattern, type Page, type PageQuery } from "../values/page-query";
import { type DatabaseTransaction, recordAudit } from "../audit/record-audit";
import type { CreateUserInput, DeductUserInput, TopUpUserInput, UpdateUserInput } from "./user-schemas";

/** Every column but the password hash; `hasPassword` says whether the user can sign in to the console. */
const userColumns = {
  id: users.id,
  name: users.name,
  role: users.role,
  group: users.group,
  balance: users.balance,
  balanceUnlimited: users.balanceUnlimited,
  ...userBudgetSelection,
  alertThresholds: users.alertThresholds,
  ...userLimitSelection,
  mayCreateTokens: users.mayCreateTokens,
  status: users.status,
  hasPassword: sql<boolean>`${users.passwordHash} is not null`.mapWith(Boolean),
  createdAt: users.createdAt,
};

/** A user row with its budget's current period spend and reset. */
function withBudget<Row extends { budgetLimit: number | null; usedTotal: number; budgetPeriod: string; budgetTimeZone: string; periodStart: Date | null; periodUsed: number }>(
  row: Row,
) {
  return { ...row, budget: budgetStatus(row, row.budgetLimit, row.usedTotal) };
}

export type UserView = Awaited<ReturnType<typeof getUser>>;

/** Any advisory-lock id will do; it only serialises concurrent first-run setups. */
const FIRST_ADMINISTRATOR_LOCK_ID = 7_201_912;

function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

function nameTaken(name: string): AdminError {
  return new AdminError("invalid_input", `User ${JSON.stringify(name)} already exists`, { field: "name" });
}

function refuseSelf(actor: Actor, id: number, what: string): void {
  if (id === actor.id) throw new AdminError("invalid_input", `You cannot ${what} your own account`);
}

export async function getUser(db: Database, id: number) {
  const [user] = await db.select(userColumns).from(users).where(eq(users.id, id)).limit(1);
  if (!user) throw unknownUser(id);
  return withBudget(user);
}

/** Resolves a user named the CLI's way, `NAME_OR_ID` (see findByNameOrId). */
export async function findUser(db: Database, reference: string): Promise<UserView> {
  const user = await findByNameOrId(reference, users, async (where) => (await db.select(userColumns).from(users).where(where).limit(1))[0], unknownUser);
  return withBudget(user);
}

export async function listUsers(db: Database): Promise<UserView[]> {
  return (await db.select(userColumns).from(users).orderBy(asc(users.id))).map(withBudget);
}

/** One page of users, by id, whose name or group contains `query`, with how many match in all. */
export async function searchUsers(db: Database, options: PageQuery): Promise<Page<UserView>> {
  const pattern = options.query ? containsPattern(options.query) : null;
  const where = pattern ? or(ilike(users.name, pattern), ilike(users.group, pattern)) : undefined;
  const [items, [counted]] = await Promise.all([
    db.select(userColumns).from(users).where(where).orderBy(asc(users.id)).limit(options.limit).offset(options.offset),
    db.select({ total: count() }).from(users).where(where),
  ]);
  return { items: items.map(withBudget), total: Number(counted?.total ?? 0), offset: options.offset, limit: options.limit };
}

const actors = alias(users, "actors");

/** A user with their latest 50 balance changes, each with who made it (null actorName: the CLI, or a deleted admin). */
export async function getUserWithBalanceLogs(db: Database, id: number) {
  const user = await getUser(db, id);
  const history = await db
    .select({
      id: balanceLogs.id,
      amount: balanceLogs.amount,
      reason: balanceLogs.reason,
      actorId: balanceLogs.actorId,
      actorName: actors.name,
      createdAt: balanceLogs.createdAt,
    })
    .from(balanceLogs)
    .leftJoin(actors, eq(actors.id, balanceLogs.actorId))
    .where(eq(balanceLogs.userId, id))
    .orderBy(desc(balanceLogs.createdAt), desc(balanceLogs.id))
    .limit(50);
  return { ...user, balanceLogs: history };
}

export async function createUser(db: Database, actor: Actor, input: CreateUserInput): Promise<UserView> {
  const [existing] = await db.select({ id: users.id }).from(users).where(eq(users.name, input.name)).limit(1);
  if (existing) throw nameTaken(input.name);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  try {
    const created = await db.transaction(async (transaction) => {
      const [row] = await transaction
      .insert(users)
      .values({
        name: input.name,
        passwordHash,
        role: input.role,
        group: input.group,
        balance: input.balance ?? 0,
        balanceUnlimited: input.balance === null,
        budgetLimit: input.budget,
        budgetPeriod: input.budgetPeriod,
        budgetTimeZone: input.budgetTimeZone,
        alertThresholds: input.alertThresholds,
        allowedModels: input.allowedModels,
        allowedIps: input.allowedIps,
        rpmLimit: input.rpmLimit,
        tpmLimit: input.tpmLimit,
        mayCreateTokens: input.mayCreateTokens,
      })
      .returning();
      if (!row) throw new Error("the new user was not returned");
      // An administrator exists: the first-run setup code is spent, whoever made one.
      if (input.role === "admin") await transaction.delete(settings).where(eq(settings.key, SETUP_NONCE_KEY));
      await recordAudit(transaction, actor, { action: "user.create", objectType: "user", objectId: row.id, before: null, after: row });
      return row;
    });
    return getUser(db, created.id);
  } catch (error) {
    // A concurrent creation of the same name got there between the check and the insert.
    if (isUniqueViolation(error)) throw nameTaken(input.name);
    throw error;
  }
}

/** Whether the first-run setup is done. */
export async function hasAdministrator(db: Database): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
  return row !== undefined;
}

/**
 * Creates the first administrator when `input.setupCode` is the current setup code (see SetupCodes), and
 * spends the code in the same transaction; null once any administrator exists (concurrent setups are
 * serialised). A wrong code, or none current, is refused as forbidden on the setupCode field.
 */
export async function createFirstAdministrator(
  db: Database,
  input: { name: string; password: string; setupCode: string },
  setupCodes: SetupCodes,
  origin: { address: string | null } = { address: null },
): Promise<{ id: number } | null> {
  const checkCode = (nonce: string | null) => {
    if (nonce === null) {
      throw new AdminError("forbidden", "No setup code is current: restart the server to get one, or create the administrator with the CLI", { field: "setupCode" });
    }
    if (!setupCodes.matches(nonce, input.setupCode)) {
      throw new AdminError("forbidden", "Wrong setup code: it is in the server's log and in the file setup-code of its data folder", { field: "setupCode" });
    }
  };
  // Checked before the slow hash too, so that guesses cost the server no argon2 work.
  if (!(await hasAdministrator(db))) checkCode(await readSetupNonce(db));
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(${FIRST_ADMINISTRATOR_LOCK_ID})`);
    const [admin] = await transaction.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
    if (admin) return null;
    checkCode(await readSetupNonce(transaction));
    await transaction.delete(settings).where(eq(settings.key, SETUP_NONCE_KEY));
    const [taken] = await transaction.select({ id: users.id }).from(users).where(eq(users.name, input.name)).limit(1);
    if (taken) throw nameTaken(input.name);
    const [row] = await transaction
      .insert(users)
      .values({ name: input.name, passwordHash, role: "admin", balanceUnlimited: true })
      .returning();
    if (!row) return null;
    // The first administrator creates themselves, with the setup code.
    const self: Actor = { role: "admin", id: row.id, group: row.group, audit: { kind: "user", id: row.id, name: row.name, address: origin.address } };
    await recordAudit(transaction, self, { action: "user.create_first_administrator", objectType: "user", objectId: row.id, before: null, after: row });
    return { id: row.id };
  });
}

/**
 * Changes group, role, status, balance mode, budget or the limits that bind all of the user's tokens;
 * disabling signs the user out everywhere. No one disables or demotes themselves.
 */
export async function updateUser(db: Database, actor: Actor, input: UpdateUserInput): Promise<UserView> {
  const { id, budget, ...changes } = input;
  if (changes.status === "disabled") refuseSelf(actor, id, "disable");
  if (changes.role === "user") refuseSelf(actor, id, "demote");
  await db.transaction(async (transaction) => {
    const [current] = await transaction.select().from(users).where(eq(users.id, id)).for("update").limit(1);
    if (!current) throw unknownUser(id);
    const [after] = await transaction
      .update(users)
      .set({ ...changes, ...(budget === undefined ? {} : { budgetLimit: budget }), ...periodResetFor(changes, current), updatedAt: new Date() })
      .where(eq(users.id, id))
      .returning();
    if (changes.status === "disabled") await signOutEverywhere(transaction, id);
    if (changes.role === "admin") await transaction.delete(settings).where(eq(settings.key, SETUP_NONCE_KEY));
    await recordAudit(transaction, actor, { action: "user.update", objectType: "user", objectId: id, before: current, after });
  });
  return getUser(db, id);
}

export async function deleteUser(db: Database, actor: Actor, id: number): Promise<{ id: number }> {
  refuseSelf(actor, id, "delete");
  return db.transaction(async (transaction) => {
    const [deleted] = await transaction.delete(users).where(eq(users.id, id)).returning();
    if (!deleted) throw unknownUser(id);
    await recordAudit(transaction, actor, { action: "user.delete", objectType: "user", objectId: id, before: deleted, after: null });
    return { id: deleted.id };
  });
}

/**
 * Records a change of a user's balance by `amount` (negative: a deduction) in balance_logs, with the acting
 * administrator, and in the audit log, both in the change's transaction; returns the balance log's id.
 */
async function recordBalanceChange(
  transaction: DatabaseTransaction,
  actor: Actor,
  change: { action: string; userId: number; amount: number; reason: string; balanceBefore: number; balanceAfter: number },
): Promise<number> {
  const [log] = await transaction
    .insert(balanceLogs)
    .values({ userId: change.userId, amount: change.amount, reason: change.reason, actorId: actor.id })
    .returning({ id: balanceLogs.id });
  if (!log) throw new Error("the balance log row was not returned");
  await recordAudit(transaction, actor, {
    action: change.action,
    objectType: "user",
    objectId: change.userId,
    before: { balance: change.balanceBefore },
    after: { balance: change.balanceAfter, amount: change.amount, reason: change.reason, balanceLogId: log.id },
  });
  return log.id;
}

/** Adds to a user's balance and records it in balance_logs (with the acting administrator), in one transaction. */
export async function topUpUser(db: Database, actor: Actor, input: TopUpUserInput): Promise<{ user: UserView; balanceLogId: number }> {
  const balanceLogId = await db.transaction(async (transaction) => {
    const [before] = await transaction.select({ balance: users.balance }).from(users).where(eq(users.id, input.id)).for("update").limit(1);
    const [updated] = await transaction
      .update(users)
      .set({ balance: sql`${users.balance} + ${input.amount}`, updatedAt: new Date() })
      .where(eq(users.id, input.id))
      .returning({ id: users.id, balance: users.balance });
    if (!updated || !before) throw unknownUser(input.id);
    return recordBalanceChange(transaction, actor, {
      action: "user.top_up",
      userId: input.id,
      amount: input.amount,
      reason: input.reason,
      balanceBefore: before.balance,
      balanceAfter: updated.balance,
    });
  });
  return { user: await getUser(db, input.id), balanceLogId };
}

/**
 * Subtracts from a user's balance and records it (negative) in balance_logs with the acting administrator
 * and the note, in one transaction. Refused when the balance would end below zero, unless `allowNegative`;
 * the check and the update are one statement, so a concurrent spend cannot slip between them.
 */
export async function deductUserBalance(db: Database, actor: Actor, input: DeductUserInput): Promise<{ user: UserView; balanceLogId: number }> {
  const balanceLogId = await db.transaction(async (transaction) => {
    const [updated] = await transaction
      .update(users)
      .set({ balance: sql`${users.balance} - ${input.amount}`, updatedAt: new Date() })
      .where(and(eq(users.id, input.id), input.allowNegative ? undefined : sql`${users.balance} >= ${input.amount}`))
      .returning({ id: users.id, balance: users.balance });
    if (!updated) {
      const [current] = await transaction.select({ balance: users.balance }).from(users).where(eq(users.id, input.id)).limit(1);
      if (!current) throw unknownUser(input.id);
      const balance = (current.balance / 1_000_000).toFixed(6).replace(/\.?0+$/, "");
      throw new AdminError("invalid_input", `Would take the balance below zero (it is ${balance} USD); allow a negative balance to do so`, { field: "amount" });
    }
    return recordBalanceChange(transaction, actor, {
      action: "user.deduct",
      userId: input.id,
      amount: -input.amount,
      reason: input.reason,
      balanceBefore: updated.balance + input.amount,
      balanceAfter: updated.balance,
    });
  });
  return { user: await getUser(db, input.id), balanceLogId };
}

/** Sets a new password and signs the user out everywhere but `keepSessionId` (the acting session, on one's own account). */
export async function setUserPassword(db: Database, actor: Actor, input: { id: number; password: string }, options: { keepSessionId?: string } = {}): Promise<void> {
  const passwordHash = await hashPassword(input.password);
  await db.transaction(async (transaction) => {
    const [updated] = await transaction.update(users).set({ passwordHash, updatedAt: new Date() }).where(eq(users.id, input.id)).returning({ id: users.id });
    if (!updated) throw unknownUser(input.id);
    await signOutEverywhere(transaction, input.id, options.keepSessionId);
    // The hash is a secret: the row says only that the password changed.
    await recordAudit(transaction, actor, { action: "user.set_password", objectType: "user", objectId: input.id, before: null, after: { passwordHash } });
  });
}

/** Ends a user's console sessions (all, or all but one). */
async function signOutEverywhere(db: Pick<Database, "delete">, userId: number, keepSessionId?: string): Promise<void> {
  await db
    .delete(sessions)
    .where(keepSessionId === undefined ? eq(sessions.userId, userId) : and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)));
}
