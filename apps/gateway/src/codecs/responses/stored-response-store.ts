import { type Database, storedResponses } from "@tollgate/db";
import { and, eq, gt, lte, sql } from "drizzle-orm";

export type StoredResponse = typeof storedResponses.$inferSelect;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A stored response of this token, unless it expired (an expired row is as good as gone, purged or not). */
export async function findStoredResponse(db: Database, id: string, tokenId: number): Promise<StoredResponse | null> {
  const [row] = await db
    .select()
    .from(storedResponses)
    .where(and(eq(storedResponses.id, id), eq(storedResponses.tokenId, tokenId), gt(storedResponses.expiresAt, sql`now()`)))
    .limit(1);
  return row ?? null;
}

export interface NewStoredResponse {
  id: string;
  tokenId: number;
  userId: number;
  channelId: number;
  native: boolean;
  model: string;
  inputItems: unknown[];
  response: Record<string, unknown>;
}

/** Inserts a finished response, kept for `retentionDays`; an id already stored (an upstream's, twice) is kept as it was. */
export async function saveStoredResponse(db: Database, row: NewStoredResponse, retentionDays: number): Promise<void> {
  const expiresAt = new Date(Date.now() + retentionDays * DAY_MS);
  await db
    .insert(storedResponses)
    .values({ ...row, expiresAt })
    .onConflictDoNothing();
}

/** Deletes this token's response; false when there was none (or it belongs to another token). */
export async function deleteStoredResponse(db: Database, id: string, tokenId: number): Promise<boolean> {
  const deleted = await db
    .delete(storedResponses)
    .where(and(eq(storedResponses.id, id), eq(storedResponses.tokenId, tokenId), gt(storedResponses.expiresAt, sql`now()`)))
    .returning({ id: storedResponses.id });
  return deleted.length > 0;
}

/** Deletes every expired stored response; returns how many. */
export async function purgeExpiredResponses(db: Database): Promise<number> {
  const purged = await db.delete(storedResponses).where(lte(storedResponses.expiresAt, sql`now()`)).returning({ id: storedResponses.id });
  return purged.length;
}

/**
 * Inserts still running, by response id: a follow-up (or a GET) that arrives before its response's insert
 * has landed waits for it instead of answering 404, since the insert runs after the answer has left.
 */
export class PendingResponseSaves {
  private readonly pending = new Map<string, Promise<void>>();

  track(id: string, saving: Promise<void>): void {
    const settled = saving.finally(() => {
      if (this.pending.get(id) === settled) this.pending.delete(id);
    });
    this.pending.set(id, settled);
  }

  /** Resolves once the insert of `id` (if one is running) has finished, whether it succeeded or not. */
  async settled(id: string): Promise<void> {
    await this.pending.get(id)?.catch(() => {});
  }
}
