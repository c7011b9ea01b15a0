import { type Database, tokens } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { and, eq, sql } from "drizzle-orm";
import type { Actor } from "../actor";
import { AdminError } from "../admin-error";
import { getToken, ownedBy, type TokenView } from "./token-operations";
import { type RollTokenInput, rollTokenSchema } from "./token-schemas";
import { recordAudit } from "../audit/record-audit";

/**
 * Gives a token a new secret and returns it, once: the token keeps its id, settings and usage history.
 * The secret it replaces keeps working for `graceSeconds` (0: refused at once), measured by the database's
 * clock; a secret still in the grace period of an earlier roll is refused at once. Every gateway evicts
 * the old secret by NOTIFY and refuses it from memory once its grace period is over.
 */
export async function rollToken(db: Database, actor: Actor, rawInput: RollTokenInput): Promise<{ token: TokenView; secret: string }> {
  const input = rollTokenSchema.parse(rawInput);
  const secret = generateTokenSecret();
  const graceActive = input.graceSeconds > 0;
  const rolled = await db.transaction(async (transaction) => {
    const ownToken = and(eq(tokens.id, input.id), ownedBy(actor));
    const [before] = await transaction.select().from(tokens).where(ownToken).for("update").limit(1);
    // Another user's token is reported as missing, not forbidden: its existence is not revealed.
    if (!before) throw new AdminError("not_found", `Unknown token id ${input.id}`);
    const [after] = await transaction
      .update(tokens)
      .set({
        keyHash: hashTokenSecret(secret),
        keyPrefix: displayPrefix(secret),
        previousKeyHash: graceActive ? sql`${tokens.keyHash}` : null,
        previousKeyPrefix: graceActive ? sql`${tokens.keyPrefix}` : null,
        previousKeyExpiresAt: graceActive ? sql`now() + make_interval(secs => ${input.graceSeconds})` : null,
        previousKeyLastUsedAt: graceActive ? sql`${tokens.lastUsedAt}` : null,
        rolledAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(ownToken)
      .returning();
    if (!after) throw new Error("the rolled token was not returned");
    await recordAudit(transaction, actor, { action: "token.roll", objectType: "token", objectId: after.id, before, after });
    return after;
  });
  return { token: await getToken(db, actor, rolled.id), secret };
}
