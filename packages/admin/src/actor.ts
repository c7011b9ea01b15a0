/**
 * Who performs an admin operation. The console passes its signed-in user; the CLI passes `cliOperator`:
 * whoever can run it owns the database, so it acts as an administrator, with no account of its own.
 */
export type Actor =
  | { role: "admin"; /** Null for the CLI. */ id: number | null; group: string | null }
  /** A user's own token may name their group (and then follows the user when an administrator moves them). */
  | { role: "user"; id: number; group: string };

export const cliOperator: Actor = { role: "admin", id: null, group: null };

export function isAdministrator(actor: Actor): actor is Extract<Actor, { role: "admin" }> {
  return actor.role === "admin";
}
