import { type Database, users } from "@tollgate/db";
import { eq } from "drizzle-orm";
import { CommandError } from "./command-error";

export type UserRow = typeof users.$inferSelect;

/**
 * Resolves `NAME_OR_ID`: all digits is looked up as an id first, then as a name. User names made only of
 * digits are refused at creation, so the two cannot collide for users created by this CLI.
 */
export async function findUser(db: Database, nameOrId: string): Promise<UserRow> {
  const trimmed = nameOrId.trim();
  if (/^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))) {
    const [byId] = await db.select().from(users).where(eq(users.id, Number(trimmed))).limit(1);
    if (byId) return byId;
  }
  const [byName] = await db.select().from(users).where(eq(users.name, trimmed)).limit(1);
  if (byName) return byName;
  throw new CommandError(`unknown user ${JSON.stringify(trimmed)}`);
}
