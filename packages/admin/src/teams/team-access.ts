import { type Database, teamMembers } from "@tollgate/db";
import { and, eq, sql, type SQL } from "drizzle-orm";
import { type Actor, isAdministrator, isTeamKey } from "../actor";
import { AdminError } from "../admin-error";
import type { TeamRole } from "./team-schemas";

type Reader = Pick<Database, "select">;

/** The actor's role in a team; null when not a member (administrators are not members by being administrators). */
export async function teamRoleOf(db: Reader, userId: number, teamId: number): Promise<TeamRole | null> {
  const [row] = await db
    .select({ role: teamMembers.role })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
    .limit(1);
  return row?.role ?? null;
}

/** A team the actor may not see is reported as missing (its existence is not revealed). */
export function unknownTeam(reference: string | number, options: { field?: string } = {}): AdminError {
  return new AdminError(options.field === undefined ? "not_found" : "invalid_input", `Unknown team ${JSON.stringify(String(reference))}`, options);
}

/**
 * The actor's role in `teamId`: a team-limited API key is its own team's admin (and of no other team); a
 * user has the role of their membership; null: not a member. Administrators are not asked.
 */
export async function actorTeamRole(db: Reader, actor: Exclude<Actor, { role: "admin" }>, teamId: number): Promise<TeamRole | null> {
  if (isTeamKey(actor)) return actor.teamId === teamId ? "team_admin" : null;
  return teamRoleOf(db, actor.id, teamId);
}

/** Passes an administrator, or a team admin of `teamId` (a user, or an API key limited to the team); refuses anyone else. */
export async function requireTeamAdmin(db: Reader, actor: Actor, teamId: number): Promise<void> {
  if (isAdministrator(actor)) return;
  const role = await actorTeamRole(db, actor, teamId);
  if (role === null) throw unknownTeam(teamId);
  if (role !== "team_admin") throw new AdminError("forbidden", "Only an administrator or the team's admins can do this");
}

/** Passes an administrator or any member of `teamId` (what they may see of the team). */
export async function requireTeamMember(db: Reader, actor: Actor, teamId: number): Promise<TeamRole | "admin"> {
  if (isAdministrator(actor)) return "admin";
  const role = await actorTeamRole(db, actor, teamId);
  if (role === null) throw unknownTeam(teamId);
  return role;
}

/** SQL: `column` is a team the user administers (for the rows a team admin may manage: the team's tokens). */
export function administeredTeam(column: SQL.Aliased | Parameters<typeof eq>[0], userId: number): SQL {
  return sql`${column} in (select ${teamMembers.teamId} from ${teamMembers} where ${teamMembers.userId} = ${userId} and ${teamMembers.role} = 'team_admin')`;
}

/** SQL: `column` is a team the user belongs to (any role). */
export function memberTeam(column: Parameters<typeof eq>[0], userId: number): SQL {
  return sql`${column} in (select ${teamMembers.teamId} from ${teamMembers} where ${teamMembers.userId} = ${userId})`;
}
