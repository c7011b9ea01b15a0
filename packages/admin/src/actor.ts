import { hostname, userInfo } from "node:os";
import { AdminError } from "./admin-error";

/**
 * Who is written in the audit log for a change: a console user, the CLI (the operating-system user running
 * it) or a management API key, and from where (the client's address; the host name for the CLI).
 */
export interface AuditIdentity {
  kind: "user" | "cli" | "api_key";
  /** The user's or the API key's id; null for the CLI. */
  id: number | null;
  name: string | null;
  address: string | null;
}

/**
 * Who performs an admin operation. The console passes its signed-in user; the CLI passes `cliOperator`:
 * whoever can run it owns the database, so it acts as an administrator, with no account of its own. A
 * management API key acts as an administrator with no account either (id null), and names itself in `audit`.
 */
export type Actor = (
  | { role: "admin"; /** Null for the CLI and API keys. */ id: number | null; group: string | null }
  /** A user's own token may name their group (and then follows the user when an administrator moves them). */
  | { role: "user"; id: number; group: string }
  /**
   * A management API key limited to a team: that team's admin (its tokens, members and usage) and nothing
   * else, with no account of its own.
   */
  | { role: "team_key"; id: null; group: null; teamId: number }
) & {
  /** Who the audit log names; omitted: the user `id` (with `name` when given), or the CLI when id is null. */
  audit?: AuditIdentity;
  name?: string;
};

function localUserName(): string | null {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers): the host name still says where.
    return null;
  }
}

export const cliOperator: Actor = {
  role: "admin",
  id: null,
  group: null,
  audit: { kind: "cli", id: null, name: localUserName(), address: hostname() },
};

export function isAdministrator(actor: Actor): actor is Extract<Actor, { role: "admin" }> {
  return actor.role === "admin";
}

export function isTeamKey(actor: Actor): actor is Extract<Actor, { role: "team_key" }> {
  return actor.role === "team_key";
}

/** The signed-in user's id, for what only a person (or an administrator) does; a team-limited key is refused. */
export function userIdOf(actor: Extract<Actor, { role: "user" | "team_key" }>): number {
  if (actor.role === "team_key") throw new AdminError("forbidden", `This API key is limited to team ${actor.teamId}, and this is not the team's`);
  return actor.id;
}

/** The identity an audit row names for `actor`. */
export function auditIdentityOf(actor: Actor): AuditIdentity {
  if (actor.audit) return actor.audit;
  if (actor.id === null) return cliOperator.audit as AuditIdentity;
  return { kind: "user", id: actor.id, name: actor.name ?? null, address: null };
}
