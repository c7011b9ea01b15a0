import { type Database, teamMembers, teams, users } from "@tollgate/db";
import { and, eq, inArray, isNull, notInArray, sql } from "drizzle-orm";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";

/** What a validated ID token says of who signed in (the console reads it; this module trusts it). */
export interface OidcIdentity {
  /** The issuer's stable subject identifier. */
  subject: string;
  /** Present only when the issuer says it is verified (email_verified: true). */
  verifiedEmail: string | null;
  /** preferred_username, else name, else the email, else the subject: the base of a new user's name. */
  displayName: string;
  /** The groups claim (OIDC_GROUPS_CLAIM), as strings. */
  groups: string[];
}

/** How groups map to the console: which groups make an administrator (teams map through their own oidc_group). */
export interface OidcGroupMapping {
  adminGroups: readonly string[];
}

export interface OidcSignInResult {
  userId: number;
  created: boolean;
  role: "admin" | "user";
  /** Names of the teams the user is a member of after the sign-in. */
  teams: string[];
}

const membershipColumns = { teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role, source: teamMembers.source };

/** The audit log names the signing-in user as the one who made the sign-in's changes. */
function signingIn(user: typeof users.$inferSelect, address: string | null): Actor {
  const identity = { kind: "user" as const, id: user.id, name: user.name, address };
  return user.role === "admin" ? { role: "admin", id: user.id, group: user.group, audit: identity } : { role: "user", id: user.id, group: user.group, audit: identity };
}

/** Any advisory-lock id will do; it serialises concurrent first sign-ins of one subject. */
const OIDC_SIGN_IN_LOCK_ID = 7_201_913;

/** A user name for a new account: the display name, made unique (`alice`, `alice-2`, ...) and never all digits. */
async function freeName(transaction: Pick<Database, "select">, base: string): Promise<string> {
  const cleaned = base.trim().slice(0, 100) || "user";
  const stem = /^\d+$/.test(cleaned) ? `user-${cleaned}` : cleaned;
  for (let attempt = 1; attempt < 1000; attempt++) {
    const candidate = attempt === 1 ? stem : `${stem}-${attempt}`;
    const [taken] = await transaction.select({ id: users.id }).from(users).where(eq(users.name, candidate)).limit(1);
    if (!taken) return candidate;
  }
  return `${stem}-${crypto.randomUUID().slice(0, 8)}`;
}

/**
 * Signs a user in by single sign-on, in one transaction: the user whose oidc_subject is the token's `sub`;
 * else (first sign-in) the user whose email is the token's verified email, now linked to the subject; else
 * a new user (no password: the console only through the identity provider). The role follows the groups
 * claim at every sign-in (an administrator when in one of OIDC_ADMIN_GROUPS, a user otherwise), and so do
 * the memberships the groups give: a member of every team whose oidc_group is among the groups, and no
 * longer of teams whose group is not (memberships made by hand in the console or CLI are left as they are).
 * A disabled user is returned as such (the caller refuses the sign-in). Each change (a user created, linked
 * or given another role, a membership added or removed) is audited in the same transaction, in the name of
 * the signing-in user, from `sourceAddress` (the browser's address as the console sees it).
 */
export async function signInOidcUser(
  db: Database,
  identity: OidcIdentity,
  mapping: OidcGroupMapping,
  sourceAddress: string | null = null,
): Promise<OidcSignInResult & { enabled: boolean }> {
  const role = identity.groups.some((group) => mapping.adminGroups.includes(group)) ? "admin" : "user";
  return db.transaction(async (transaction) => {
    await transaction.execute(sql`select pg_advisory_xact_lock(${OIDC_SIGN_IN_LOCK_ID})`);
    let [user] = await transaction.select().from(users).where(eq(users.oidcSubject, identity.subject)).limit(1);
    let created = false;
    if (!user && identity.verifiedEmail !== null) {
      [user] = await transaction
        .select()
        .from(users)
        .where(and(eq(users.email, identity.verifiedEmail), isNull(users.oidcSubject)))
        .limit(1);
    }
    if (!user) {
      const name = await freeName(transaction, identity.displayName);
      [user] = await transaction
        .insert(users)
        .values({ name, role, oidcSubject: identity.subject, email: identity.verifiedEmail, balanceUnlimited: true })
        .returning();
      if (!user) throw new Error("the new user was not returned");
      created = true;
      await recordAudit(transaction, signingIn(user, sourceAddress), { action: "user.create", objectType: "user", objectId: user.id, before: null, after: user });
    } else {
      const before = user;
      const [after] = await transaction
        .update(users)
        .set({ role, oidcSubject: identity.subject, ...(identity.verifiedEmail === null ? {} : { email: identity.verifiedEmail }), updatedAt: new Date() })
        .where(eq(users.id, user.id))
        .returning();
      if (!after) throw new Error("the signed-in user was not returned");
      user = after;
      if (before.role !== after.role || before.oidcSubject !== after.oidcSubject || before.email !== after.email) {
        const action = before.oidcSubject === null ? "user.oidc_link" : "user.update";
        await recordAudit(transaction, signingIn(after, sourceAddress), { action, objectType: "user", objectId: after.id, before, after });
      }
    }
    const actor = signingIn(user, sourceAddress);
    const mapped = identity.groups.length === 0 ? [] : await transaction.select({ id: teams.id }).from(teams).where(inArray(teams.oidcGroup, identity.groups));
    const mappedIds = mapped.map((team) => team.id);
    const removed = await transaction
      .delete(teamMembers)
      .where(and(eq(teamMembers.userId, user.id), eq(teamMembers.source, "oidc"), mappedIds.length === 0 ? undefined : notInArray(teamMembers.teamId, mappedIds)))
      .returning(membershipColumns);
    const added =
      mappedIds.length === 0
        ? []
        : await transaction
            .insert(teamMembers)
            .values(mappedIds.map((teamId) => ({ teamId, userId: user!.id, role: "member" as const, source: "oidc" as const })))
            .onConflictDoNothing()
            .returning(membershipColumns);
    for (const member of removed) {
      await recordAudit(transaction, actor, { action: "team.member_remove", objectType: "team_member", objectId: `${member.teamId}:${member.userId}`, before: member, after: null });
    }
    for (const member of added) {
      await recordAudit(transaction, actor, { action: "team.member_add", objectType: "team_member", objectId: `${member.teamId}:${member.userId}`, before: null, after: member });
    }
    const memberOf = await transaction
      .select({ name: teams.name })
      .from(teamMembers)
      .innerJoin(teams, eq(teams.id, teamMembers.teamId))
      .where(eq(teamMembers.userId, user.id))
      .orderBy(teams.name);
    return { userId: user.id, created, role, teams: memberOf.map((team) => team.name), enabled: user.status === "enabled" };
  });
}
