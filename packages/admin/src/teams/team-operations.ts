import { adminApiKeys, type Database, errorCauses, isUniqueViolation, requestLogs, teamBudgetSelection, teamMembers, teams, tokens, usageHourly, users } from "@tollgate/db";
import { and, asc, count, desc, eq, gte, inArray, sql } from "drizzle-orm";
import { type Actor, isAdministrator, isTeamKey } from "../actor";
import { AdminError, unknownUser } from "../admin-error";
import { recordAudit } from "../audit/record-audit";
import { budgetStatus, periodResetFor } from "../values/budget-status";
import { findByNameOrId } from "../values/find-by-name-or-id";
import { memberTeam, requireTeamAdmin, requireTeamMember, unknownTeam } from "./team-access";
import type { AddTeamMemberInput, CreateTeamInput, RemoveTeamMemberInput, UpdateTeamInput } from "./team-schemas";

const teamColumns = {
  id: teams.id,
  name: teams.name,
  description: teams.description,
  oidcGroup: teams.oidcGroup,
  ...teamBudgetSelection,
  alertThresholds: teams.alertThresholds,
  allowedModels: teams.allowedModels,
  allowedIps: teams.allowedIps,
  rpmLimit: teams.rpmLimit,
  tpmLimit: teams.tpmLimit,
  status: teams.status,
  createdAt: teams.createdAt,
};

type TeamRow = { budgetLimit: number | null; usedTotal: number; budgetPeriod: string; budgetTimeZone: string; periodStart: Date | null; periodUsed: number };

function withBudget<Row extends TeamRow>(row: Row) {
  return { ...row, budget: budgetStatus(row, row.budgetLimit, row.usedTotal) };
}

export type TeamView = Awaited<ReturnType<typeof readTeam>>;

function nameTaken(name: string): AdminError {
  return new AdminError("invalid_input", `Team ${JSON.stringify(name)} already exists`, { field: "name" });
}

/** A unique violation names the name or the OIDC group taken (whichever the message of the constraint says). */
function uniqueViolationError(error: unknown, input: { name?: string; oidcGroup?: string | null }): unknown {
  if (error instanceof AdminError || !isUniqueViolation(error)) return error;
  const onGroup = errorCauses(error).some((item) => /oidc_group/.test(String((item as { message?: unknown }).message ?? "")));
  if (onGroup || input.name === undefined) {
    return new AdminError("invalid_input", `Another team is mapped to the group ${JSON.stringify(input.oidcGroup ?? "")}`, { field: "oidcGroup" });
  }
  return nameTaken(input.name);
}

async function readTeam(db: Pick<Database, "select">, id: number) {
  const [team] = await db.select(teamColumns).from(teams).where(eq(teams.id, id)).limit(1);
  if (!team) throw unknownTeam(id);
  return withBudget(team);
}

/** A team with its members and its number of tokens; administrators and the team's members only. */
export async function getTeam(db: Database, actor: Actor, id: number) {
  const yourRole = await requireTeamMember(db, actor, id);
  const team = await readTeam(db, id);
  const members = await db
    .select({ userId: teamMembers.userId, name: users.name, email: users.email, role: teamMembers.role, source: teamMembers.source, createdAt: teamMembers.createdAt })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, id))
    .orderBy(asc(users.name));
  const [tokenCount] = await db.select({ total: count() }).from(tokens).where(eq(tokens.teamId, id));
  return { ...team, members, tokenCount: Number(tokenCount?.total ?? 0), yourRole };
}

/** Resolves a team named the CLI's way, `NAME_OR_ID` (see findByNameOrId). */
export async function findTeam(db: Database, reference: string): Promise<TeamView> {
  const team = await findByNameOrId(reference, teams, async (where) => (await db.select(teamColumns).from(teams).where(where).limit(1))[0], unknownTeam);
  return withBudget(team);
}

/** Every team for an administrator; the teams the actor belongs to otherwise. With member and token counts. */
export async function listTeams(db: Database, actor: Actor) {
  const rows = await db
    .select({
      ...teamColumns,
      memberCount: sql<number>`(select count(*) from ${teamMembers} where ${teamMembers.teamId} = ${teams.id})`.mapWith(Number),
      tokenCount: sql<number>`(select count(*) from ${tokens} where ${tokens.teamId} = ${teams.id})`.mapWith(Number),
    })
    .from(teams)
    .where(isAdministrator(actor) ? undefined : isTeamKey(actor) ? eq(teams.id, actor.teamId) : memberTeam(teams.id, actor.id))
    .orderBy(asc(teams.id));
  return rows.map(withBudget);
}

function requireAdministrator(actor: Actor, what: string): void {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", `Only an administrator can ${what}`);
}

export async function createTeam(db: Database, actor: Actor, input: CreateTeamInput): Promise<TeamView> {
  requireAdministrator(actor, "create teams");
  const { budget, ...fields } = input;
  try {
    const id = await db.transaction(async (transaction) => {
      const [taken] = await transaction.select({ id: teams.id }).from(teams).where(eq(teams.name, input.name)).limit(1);
      if (taken) throw nameTaken(input.name);
      const [created] = await transaction.insert(teams).values({ ...fields, budgetLimit: budget }).returning();
      if (!created) throw new Error("the new team was not returned");
      await recordAudit(transaction, actor, { action: "team.create", objectType: "team", objectId: created.id, before: null, after: created });
      return created.id;
    });
    return readTeam(db, id);
  } catch (error) {
    throw uniqueViolationError(error, input);
  }
}

/** Changes a team's name, status, budget, OIDC group or limits: administrators only (a team admin manages members and tokens). */
export async function updateTeam(db: Database, actor: Actor, input: UpdateTeamInput): Promise<TeamView> {
  requireAdministrator(actor, "change a team's settings");
  const { id, budget, ...changes } = input;
  try {
    await db.transaction(async (transaction) => {
      const [current] = await transaction.select().from(teams).where(eq(teams.id, id)).for("update").limit(1);
      if (!current) throw unknownTeam(id);
      const [after] = await transaction
        .update(teams)
        .set({ ...changes, ...(budget === undefined ? {} : { budgetLimit: budget }), ...periodResetFor(changes, current), updatedAt: new Date() })
        .where(eq(teams.id, id))
        .returning();
      await recordAudit(transaction, actor, { action: "team.update", objectType: "team", objectId: id, before: current, after });
    });
  } catch (error) {
    throw uniqueViolationError(error, { name: changes.name, oidcGroup: changes.oidcGroup });
  }
  return readTeam(db, id);
}

/** Deletes a team and its memberships; refused while tokens belong to it (delete or move them first). */
export async function deleteTeam(db: Database, actor: Actor, id: number): Promise<{ id: number; name: string }> {
  requireAdministrator(actor, "delete teams");
  return db.transaction(async (transaction) => {
    const [team] = await transaction.select({ id: teams.id }).from(teams).where(eq(teams.id, id)).for("update").limit(1);
    if (!team) throw unknownTeam(id);
    const [tokenCount] = await transaction.select({ total: count() }).from(tokens).where(eq(tokens.teamId, id));
    const total = Number(tokenCount?.total ?? 0);
    if (total > 0) throw new AdminError("invalid_input", `The team still has ${total} token${total === 1 ? "" : "s"}: delete them first`);
    // The team's API keys go with it (the foreign key would cascade): each is audited, as a revocation would be.
    const keys = await transaction.delete(adminApiKeys).where(eq(adminApiKeys.teamId, id)).returning();
    for (const key of keys) await recordAudit(transaction, actor, { action: "api_key.delete", objectType: "api_key", objectId: key.id, before: key, after: null });
    const [deleted] = await transaction.delete(teams).where(eq(teams.id, id)).returning();
    if (!deleted) throw unknownTeam(id);
    await recordAudit(transaction, actor, { action: "team.delete", objectType: "team", objectId: id, before: deleted, after: null });
    return { id: deleted.id, name: deleted.name };
  });
}

/** Adds a user to a team, or changes their role there; administrators and the team's admins. */
export async function addTeamMember(db: Database, actor: Actor, input: AddTeamMemberInput) {
  return db.transaction(async (transaction) => {
    await requireTeamAdmin(transaction, actor, input.teamId);
    await readTeam(transaction, input.teamId);
    const [user] = await transaction.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).limit(1);
    if (!user) throw unknownUser(input.userId, { field: "userId" });
    const [previous] = await transaction
      .select({ teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role, source: teamMembers.source })
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, input.teamId), eq(teamMembers.userId, input.userId)))
      .for("update")
      .limit(1);
    const [member] = await transaction
      .insert(teamMembers)
      .values({ teamId: input.teamId, userId: input.userId, role: input.role, source: "manual" })
      .onConflictDoUpdate({ target: [teamMembers.teamId, teamMembers.userId], set: { role: input.role, source: "manual" } })
      .returning({ teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role });
    if (!member) throw new Error("the membership was not returned");
    await recordAudit(transaction, actor, {
      action: previous ? "team.member_update" : "team.member_add",
      objectType: "team_member",
      objectId: `${input.teamId}:${input.userId}`,
      before: previous ?? null,
      after: { ...member, source: "manual" },
    });
    return member;
  });
}

/** Removes a user from a team (their tokens of the team stay, owned by them); administrators and the team's admins. */
export async function removeTeamMember(db: Database, actor: Actor, input: RemoveTeamMemberInput): Promise<{ teamId: number; userId: number }> {
  return db.transaction(async (transaction) => {
    await requireTeamAdmin(transaction, actor, input.teamId);
    const [removed] = await transaction
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, input.teamId), eq(teamMembers.userId, input.userId)))
      .returning({ teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role, source: teamMembers.source });
    if (!removed) throw new AdminError("not_found", `User ${input.userId} is not a member of team ${input.teamId}`);
    await recordAudit(transaction, actor, { action: "team.member_remove", objectType: "team_member", objectId: `${input.teamId}:${input.userId}`, before: removed, after: null });
    return { teamId: removed.teamId, userId: removed.userId };
  });
}

/** The team's spend per model over the last `days` days (from the hourly rollup of its tokens); members and administrators. */
export async function teamUsage(db: Database, actor: Actor, teamId: number, days = 30) {
  await requireTeamMember(db, actor, teamId);
  const since = new Date(Date.now() - days * 24 * 3600 * 1000);
  return db
    .select({
      model: usageHourly.model,
      requests: sql<number>`sum(${usageHourly.requests})`.mapWith(Number),
      promptTokens: sql<number>`sum(${usageHourly.promptTokens})`.mapWith(Number),
      completionTokens: sql<number>`sum(${usageHourly.completionTokens})`.mapWith(Number),
      cost: sql<number>`sum(${usageHourly.cost})`.mapWith(Number),
    })
    .from(usageHourly)
    .innerJoin(tokens, eq(tokens.id, usageHourly.tokenId))
    .where(and(eq(tokens.teamId, teamId), gte(usageHourly.hour, since)))
    .groupBy(usageHourly.model)
    .orderBy(desc(sql`sum(${usageHourly.cost})`));
}

/** The latest request-log rows of the team's tokens; members and administrators. */
export async function teamLogs(db: Database, actor: Actor, teamId: number, limit = 50) {
  await requireTeamMember(db, actor, teamId);
  const teamTokens = db.select({ id: tokens.id }).from(tokens).where(eq(tokens.teamId, teamId));
  return db
    .select({
      id: requestLogs.id,
      createdAt: requestLogs.createdAt,
      tokenName: requestLogs.tokenName,
      userId: requestLogs.userId,
      endpoint: requestLogs.endpoint,
      model: requestLogs.model,
      status: requestLogs.status,
      promptTokens: requestLogs.promptTokens,
      completionTokens: requestLogs.completionTokens,
      cost: requestLogs.cost,
      latencyMs: requestLogs.latencyMs,
    })
    .from(requestLogs)
    .where(inArray(requestLogs.tokenId, teamTokens))
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(Math.min(Math.max(1, limit), 500));
}
