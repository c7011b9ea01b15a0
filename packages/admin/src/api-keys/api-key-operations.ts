import { adminApiKeys, type Database, teams } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { and, asc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { type Actor, isAdministrator } from "../actor";
import { AdminError } from "../admin-error";
import { recordAudit } from "../audit/record-audit";
import { unknownTeam } from "../teams/team-access";
import type { CreateApiKeyInput } from "./api-key-schemas";

/** What any interface may show of a management API key: never its secret or hash. */
const apiKeyColumns = {
  id: adminApiKeys.id,
  name: adminApiKeys.name,
  keyPrefix: adminApiKeys.keyPrefix,
  scope: adminApiKeys.scope,
  teamId: adminApiKeys.teamId,
  createdBy: adminApiKeys.createdBy,
  createdAt: adminApiKeys.createdAt,
  lastUsedAt: adminApiKeys.lastUsedAt,
  revokedAt: adminApiKeys.revokedAt,
};

export type ApiKeyView = { [K in keyof typeof apiKeyColumns]: (typeof adminApiKeys.$inferSelect)[K] };

/** Management API secrets start with this, so that one is not mistaken for a gateway token (`sk-`). */
export const API_KEY_PREFIX = "tgadm-";

function requireAdministrator(actor: Actor): void {
  if (!isAdministrator(actor)) throw new AdminError("forbidden", "Only an administrator can manage API keys");
}

/** Creates a key and returns its secret, which is never stored and never returned again. */
export async function createApiKey(db: Database, actor: Actor, input: CreateApiKeyInput): Promise<{ apiKey: ApiKeyView; secret: string }> {
  requireAdministrator(actor);
  const secret = `${API_KEY_PREFIX}${generateTokenSecret().slice(3)}`;
  const apiKey = await db.transaction(async (transaction) => {
    if (input.teamId != null) {
      const [team] = await transaction.select({ id: teams.id }).from(teams).where(eq(teams.id, input.teamId)).limit(1);
      if (!team) throw unknownTeam(input.teamId, { field: "teamId" });
    }
    const [row] = await transaction
      .insert(adminApiKeys)
      .values({ name: input.name, scope: input.scope, teamId: input.teamId ?? null, keyHash: hashTokenSecret(secret), keyPrefix: displayPrefix(secret), createdBy: actor.id })
      .returning();
    if (!row) throw new Error("the new API key was not returned");
    await recordAudit(transaction, actor, { action: "api_key.create", objectType: "api_key", objectId: row.id, before: null, after: row });
    const { keyHash: _hash, ...view } = row;
    return view;
  });
  return { apiKey, secret };
}

export async function listApiKeys(db: Database, actor: Actor): Promise<ApiKeyView[]> {
  requireAdministrator(actor);
  return db.select(apiKeyColumns).from(adminApiKeys).orderBy(asc(adminApiKeys.id));
}

/** Revokes a key: it is refused from the next request on. */
export async function revokeApiKey(db: Database, actor: Actor, id: number): Promise<ApiKeyView> {
  requireAdministrator(actor);
  return db.transaction(async (transaction) => {
    const [before] = await transaction.select(apiKeyColumns).from(adminApiKeys).where(eq(adminApiKeys.id, id)).for("update").limit(1);
    if (!before) throw new AdminError("not_found", `Unknown API key id ${id}`);
    if (before.revokedAt !== null) return before;
    const [after] = await transaction.update(adminApiKeys).set({ revokedAt: new Date() }).where(eq(adminApiKeys.id, id)).returning(apiKeyColumns);
    await recordAudit(transaction, actor, { action: "api_key.revoke", objectType: "api_key", objectId: id, before, after });
    return after!;
  });
}

/** How stale last_used_at may get: one write per key per minute at most, not one per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The key a secret belongs to, if it is not revoked, as the actor its requests act as: an administrator
 * with no account (id null), or for a key limited to a team that team's admin, named in the audit log by the
 * key. Null: unknown or revoked.
 */
export async function authenticateApiKey(db: Database, secret: string, address: string | null): Promise<{ apiKey: ApiKeyView; actor: Actor } | null> {
  if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 200) return null;
  const [apiKey] = await db
    .select(apiKeyColumns)
    .from(adminApiKeys)
    .where(and(eq(adminApiKeys.keyHash, hashTokenSecret(secret)), isNull(adminApiKeys.revokedAt)))
    .limit(1);
  if (!apiKey) return null;
  const staleBefore = new Date(Date.now() - LAST_USED_RESOLUTION_MS);
  await db
    .update(adminApiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(adminApiKeys.id, apiKey.id), or(isNull(adminApiKeys.lastUsedAt), lt(adminApiKeys.lastUsedAt, staleBefore))));
  const audit = { kind: "api_key" as const, id: apiKey.id, name: apiKey.name, address };
  const actor: Actor =
    apiKey.teamId === null ? { role: "admin", id: null, group: null, audit } : { role: "team_key", id: null, group: null, teamId: apiKey.teamId, audit };
  return { apiKey, actor };
}
