import { type Database, teams, tokenPublicColumns, tokens, userBudgetSelection, userLimitSelection, users } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { and, asc, count, desc, eq, ilike, or, type SQL } from "drizzle-orm";
import { actorTeamRole, administeredTeam, teamRoleOf, unknownTeam } from "../teams/team-access";
import { type Actor, isAdministrator, isTeamKey } from "../actor";
import { AdminError, unknownUser } from "../admin-error";
import { budgetStatus, periodResetFor } from "../values/budget-status";
import { containsPattern, type Page, type PageQuery } from "../values/page-query";
import { grantedLimitsOf, mergeGrantedLimits, ownerEditErrors, type OwnerLimits, ownerLimitErrors, type TokenChanges, type TokenLimits } from "./token-entitlements";
import type { CreateTokenInput, UpdateTokenInput } from "./token-schemas";
import { groupScopeRefusal, teamScopeRefusal } from "../values/response-cache-schemas";
import { recordAudit } from "../audit/record-audit";

/** What any interface may show of a token (never its secret or hash), plus the ceilings an administrator set. */
const tokenColumns = { ...tokenPublicColumns, grantedLimits: tokens.grantedLimits };

export type TokenView = Awaited<ReturnType<typeof getToken>>;

/** A token row with its current period's spend and reset (the quota's budget). */
function withBudget<Row extends { quotaLimit: number | null; usedQuota: number; budgetPeriod: string; budgetTimeZone: string; periodStart: Date | null; periodUsed: number }>(
  row: Row,
) {
  return { ...row, budget: budgetStatus(row, row.quotaLimit, row.usedQuota) };
}

function unknownToken(id: number): AdminError {
  // Another user's token is reported as missing, not forbidden: its existence is not revealed.
  return new AdminError("not_found", `Unknown token id ${id}`);
}

/** Rows the actor may see and change: all for an administrator; their own and their administered teams' otherwise. */
export function ownedBy(actor: Actor): SQL | undefined {
  if (isAdministrator(actor)) return undefined;
  // A team-limited API key: its team's tokens only.
  if (isTeamKey(actor)) return eq(tokens.teamId, actor.teamId);
  return or(eq(tokens.userId, actor.id), administeredTeam(tokens.teamId, actor.id));
}

export async function getToken(db: Database, actor: Actor, id: number) {
  const [token] = await db
    .select(tokenColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(and(eq(tokens.id, id), ownedBy(actor)))
    .limit(1);
  if (!token) throw unknownToken(id);
  return withBudget(token);
}

/** The actor's tokens (an administrator's: everyone's), optionally one owner's; by id, newest first if asked. */
export async function listTokens(db: Database, actor: Actor, options: { userId?: number; newestFirst?: boolean } = {}) {
  if (options.userId !== undefined && !isAdministrator(actor) && !isTeamKey(actor) && options.userId !== actor.id) {
    throw new AdminError("forbidden", "You can only list your own tokens");
  }
  const rows = await db
    .select(tokenColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(and(ownedBy(actor), options.userId === undefined ? undefined : eq(tokens.userId, options.userId)))
    .orderBy(options.newestFirst ? desc(tokens.id) : asc(tokens.id));
  return rows.map(withBudget);
}

/**
 * One page of the actor's tokens (an administrator's: everyone's, or one owner's), newest first, whose name,
 * key prefix or owner's name contains `query`, with how many match in all.
 */
export async function searchTokens(db: Database, actor: Actor, options: PageQuery & { userId?: number; teamId?: number }): Promise<Page<TokenView>> {
  if (options.userId !== undefined && !isAdministrator(actor) && !isTeamKey(actor) && options.userId !== actor.id) {
    throw new AdminError("forbidden", "You can only list your own tokens");
  }
  const pattern = options.query ? containsPattern(options.query) : null;
  const where = and(
    ownedBy(actor),
    options.userId === undefined ? undefined : eq(tokens.userId, options.userId),
    options.teamId === undefined ? undefined : eq(tokens.teamId, options.teamId),
    pattern ? or(ilike(tokens.name, pattern), ilike(tokens.keyPrefix, pattern), isAdministrator(actor) ? ilike(users.name, pattern) : undefined) : undefined,
  );
  const [items, [counted]] = await Promise.all([
    db.select(tokenColumns).from(tokens).innerJoin(users, eq(users.id, tokens.userId)).where(where).orderBy(desc(tokens.id)).limit(options.limit).offset(options.offset),
    db.select({ total: count() }).from(tokens).innerJoin(users, eq(users.id, tokens.userId)).where(where),
  ]);
  return { items: items.map(withBudget), total: Number(counted?.total ?? 0), offset: options.offset, limit: options.limit };
}

/** The limits an administrator set on a user (binding all of their tokens), and whether they may create tokens. */
async function ownerLimitsOf(db: Pick<Database, "select">, userId: number): Promise<OwnerLimits & { mayCreateTokens: boolean }> {
  const [owner] = await db
    .select({
      allowedModels: users.allowedModels,
      allowedIps: users.allowedIps,
      rpmLimit: users.rpmLimit,
      tpmLimit: users.tpmLimit,
      mayCreateTokens: users.mayCreateTokens,
    })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  if (!owner) throw unknownUser(userId);
  return owner;
}

/**
 * The limits a token owner's account puts on every token of theirs (what the token form shows as inherited):
 * the user's model list, IP list, shared per-minute limits, budget, and whether they may create tokens.
 * A user sees their own; an administrator anyone's (`userId`; omitted, their own).
 */
export async function getOwnerLimits(db: Database, actor: Actor, userId?: number) {
  const id = userId ?? actor.id;
  if (id === null) throw new AdminError("invalid_input", "Name the user whose limits to show", { field: "userId" });
  if (!isAdministrator(actor) && id !== actor.id) throw new AdminError("forbidden", "You can only see your own account's limits");
  const [owner] = await db
    .select({
      userId: users.id,
      name: users.name,
      ...userLimitSelection,
      mayCreateTokens: users.mayCreateTokens,
      ...userBudgetSelection,
    })
    .from(users)
    .where(eq(users.id, id))
    .limit(1);
  if (!owner) throw unknownUser(id, userId === undefined ? {} : { field: "userId" });
  const { usedTotal: _usedTotal, periodStart: _periodStart, periodUsed: _periodUsed, ...limits } = owner;
  return { ...limits, budget: budgetStatus(owner, owner.budgetLimit, owner.usedTotal) };
}

/** The fields of `changes` that differ from `current` (a value left as it is is never refused). */
function changedFields(current: TokenLimits, changes: TokenChanges): TokenChanges {
  const changed: TokenChanges = {};
  const differs = (left: readonly string[], right: readonly string[]) => left.length !== right.length || left.some((item) => !right.includes(item));
  if (changes.allowedModels !== undefined && differs(changes.allowedModels, current.allowedModels)) changed.allowedModels = changes.allowedModels;
  if (changes.allowedIps !== undefined && differs(changes.allowedIps, current.allowedIps)) changed.allowedIps = changes.allowedIps;
  if (changes.rpmLimit !== undefined && changes.rpmLimit !== current.rpmLimit) changed.rpmLimit = changes.rpmLimit;
  if (changes.tpmLimit !== undefined && changes.tpmLimit !== current.tpmLimit) changed.tpmLimit = changes.tpmLimit;
  return changed;
}

/**
 * Creates a token and returns it with its secret, which is never stored and never returned again. An
 * administrator's token carries its limits as ceilings for its owner; a user's own token has none, and
 * always uses the user's group, is refused when an administrator withheld token creation from the user, and
 * may not widen the limits an administrator set on the user (the gateway applies those to every token anyway).
 */
export async function createToken(db: Database, actor: Actor, input: CreateTokenInput): Promise<{ token: TokenView; secret: string }> {
  let userId = actor.id;
  const teamId = input.teamId ?? null;
  if (isTeamKey(actor) && teamId !== actor.teamId) {
    throw new AdminError("forbidden", `This API key is limited to team ${actor.teamId}: it creates that team's tokens only (teamId ${actor.teamId})`, { field: "teamId" });
  }
  const roleInTeam = teamId === null || isAdministrator(actor) ? null : await actorTeamRole(db, actor, teamId);
  if (teamId !== null && !isAdministrator(actor) && roleInTeam === null) throw unknownTeam(teamId, { field: "teamId" });
  if (input.userId !== undefined && input.userId !== actor.id) {
    if (!isAdministrator(actor) && roleInTeam !== "team_admin") throw new AdminError("forbidden", "You can only create tokens for yourself");
    // A team admin makes team tokens for the team's members only.
    if (!isAdministrator(actor) && (await teamRoleOf(db, input.userId, teamId!)) === null) {
      throw new AdminError("invalid_input", "The owner of a team token must be a member of the team", { field: "userId" });
    }
    const [owner] = await db.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).limit(1);
    if (!owner) throw unknownUser(input.userId, { field: "userId" });
    userId = owner.id;
  }
  if (userId === null) throw new AdminError("invalid_input", "A token needs an owner", { field: "userId" });
  if (teamId !== null && isAdministrator(actor)) {
    const [team] = await db.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).limit(1);
    if (!team) throw unknownTeam(teamId, { field: "teamId" });
  }
  let group = input.group ?? null;
  if (!isAdministrator(actor) && group !== null) {
    // Naming one's own group is allowed and stored as "the owner's group", so that the token follows the
    // user if an administrator moves them; any other group is not theirs to reach.
    if (group !== actor.group) throw AdminError.forFields("forbidden", { group: ["Only an administrator can set a token's group"] });
    group = null;
  }
  const limits = {
    expiresAt: input.expiresAt ?? null,
    quotaLimit: input.quotaLimit ?? null,
    allowedModels: input.allowedModels ?? [],
    allowedIps: input.allowedIps ?? [],
    rpmLimit: input.rpmLimit ?? null,
    tpmLimit: input.tpmLimit ?? null,
  };
  const teamScopeRefused = teamScopeRefusal(input.responseCacheScope, teamId);
  if (teamScopeRefused) throw AdminError.forFields("invalid_input", teamScopeRefused);
  if (!isAdministrator(actor)) {
    const scopeRefused = groupScopeRefusal(input.responseCacheScope);
    if (scopeRefused) throw AdminError.forFields("forbidden", scopeRefused);
    const owner = await ownerLimitsOf(db, userId);
    if (!owner.mayCreateTokens) {
      throw new AdminError("forbidden", "An administrator does not allow your account to create tokens: ask an administrator for one");
    }
    const refused = ownerLimitErrors(owner, limits);
    if (Object.keys(refused).length > 0) throw AdminError.forFields("forbidden", refused);
  }
  const secret = generateTokenSecret();
  const created = await db.transaction(async (transaction) => {
    const [row] = await transaction
      .insert(tokens)
      .values({
      userId,
      teamId,
      name: input.name,
      keyHash: hashTokenSecret(secret),
      keyPrefix: displayPrefix(secret),
      group,
      ...limits,
      budgetPeriod: input.budgetPeriod ?? "none",
      budgetTimeZone: input.budgetTimeZone ?? "UTC",
      alertThresholds: input.alertThresholds ?? null,
      responseCacheTtlSeconds: input.responseCacheTtlSeconds ?? null,
      responseCacheScope: input.responseCacheScope ?? "user",
      grantedLimits: isAdministrator(actor) ? grantedLimitsOf(limits) : {},
    })
      .returning();
    if (!row) throw new Error("the new token was not returned");
    await recordAudit(transaction, actor, { action: "token.create", objectType: "token", objectId: row.id, before: null, after: row });
    return row;
  });
  return { token: await getToken(db, actor, created.id), secret };
}

/**
 * Changes the fields the input names. An administrator's write also sets the ceilings of the limits it
 * names. An owner's write is checked against them, under a row lock, so that an administrator's
 * concurrent change cannot be outrun.
 */
export async function updateToken(db: Database, actor: Actor, input: UpdateTokenInput): Promise<TokenView> {
  const { id, ...changes } = input;
  if (isAdministrator(actor)) {
    await db.transaction(async (transaction) => {
      const [current] = await transaction.select().from(tokens).where(eq(tokens.id, id)).for("update").limit(1);
      if (!current) throw unknownToken(id);
      const [after] = await transaction
        .update(tokens)
        .set({ ...changes, ...periodResetFor(changes, current), grantedLimits: mergeGrantedLimits(grantedLimitsOf(changes)), updatedAt: new Date() })
        .where(eq(tokens.id, id))
        .returning();
      await recordAudit(transaction, actor, { action: "token.update", objectType: "token", objectId: id, before: current, after });
    });
    return getToken(db, actor, id);
  }
  await db.transaction(async (transaction) => {
    const [current] = await transaction
      .select({
        userId: tokens.userId,
        group: tokens.group,
        status: tokens.status,
        quotaLimit: tokens.quotaLimit,
        expiresAt: tokens.expiresAt,
        allowedModels: tokens.allowedModels,
        allowedIps: tokens.allowedIps,
        rpmLimit: tokens.rpmLimit,
        tpmLimit: tokens.tpmLimit,
        grantedLimits: tokens.grantedLimits,
        budgetPeriod: tokens.budgetPeriod,
        budgetTimeZone: tokens.budgetTimeZone,
        responseCacheScope: tokens.responseCacheScope,
        teamId: tokens.teamId,
      })
      .from(tokens)
      .where(and(eq(tokens.id, id), ownedBy(actor)))
      .for("update")
      .limit(1);
    if (!current) throw unknownToken(id);
    const teamScopeRefused = changes.responseCacheScope === undefined ? null : teamScopeRefusal(changes.responseCacheScope, current.teamId);
    if (teamScopeRefused) throw AdminError.forFields("invalid_input", teamScopeRefused);
    // The owner's account limits bind the token (a team admin may be editing a member's token of the team).
    const refused = {
      ...ownerLimitErrors(await ownerLimitsOf(transaction, current.userId), changedFields(current, changes)),
      ...ownerEditErrors(current, changes),
      ...(changes.responseCacheScope !== current.responseCacheScope ? groupScopeRefusal(changes.responseCacheScope) : null),
    };
    const reset = periodResetFor(changes, current);
    // A quota an administrator set is per the period they set: another period would change what it allows.
    if (Object.keys(reset).length > 0 && current.grantedLimits.quotaLimit != null) {
      const message = "Only an administrator can change the budget period of a quota an administrator set";
      if (changes.budgetPeriod !== undefined && changes.budgetPeriod !== current.budgetPeriod) refused.budgetPeriod = [message];
      if (changes.budgetTimeZone !== undefined && changes.budgetTimeZone !== current.budgetTimeZone) refused.budgetTimeZone = [message];
    }
    if (Object.keys(refused).length > 0) throw AdminError.forFields("forbidden", refused);
    const { group: _unchangedGroup, ...allowed } = changes;
    const [before] = await transaction.select().from(tokens).where(eq(tokens.id, id)).limit(1);
    const [after] = await transaction.update(tokens).set({ ...allowed, ...reset, updatedAt: new Date() }).where(eq(tokens.id, id)).returning();
    await recordAudit(transaction, actor, { action: "token.update", objectType: "token", objectId: id, before, after });
  });
  return getToken(db, actor, id);
}

export async function deleteToken(db: Database, actor: Actor, id: number): Promise<{ id: number; name: string }> {
  return db.transaction(async (transaction) => {
    const [deleted] = await transaction
      .delete(tokens)
      .where(and(eq(tokens.id, id), ownedBy(actor)))
      .returning();
    if (!deleted) throw unknownToken(id);
    await recordAudit(transaction, actor, { action: "token.delete", objectType: "token", objectId: id, before: deleted, after: null });
    return { id: deleted.id, name: deleted.name };
  });
}
