import { createHash } from "node:crypto";
import { apiIdempotencyKeys, type Database } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { and, eq, lt, sql } from "drizzle-orm";
import { ApiError } from "./api-error";

/** How long a create's answer is kept for replay. */
const KEPT_MS = 24 * 3_600_000;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

function binding(apiKeyId: number, key: string): string {
  return `api_idempotency_keys:response:${apiKeyId}:${key}`;
}

/**
 * Runs a create once per (API key, Idempotency-Key): the first call claims the key (a row without an
 * answer), runs, and stores its answer; a retry with the same method, path and body gets that answer again;
 * with another request, or while the first still runs, it is refused with 409. The answer may hold a secret
 * (a new token's key), so it is stored sealed with TOLLGATE_SECRET, and deleted after 24 hours. A failure
 * that is not the caller's (5xx) frees the key for a retry.
 */
export async function runIdempotent(
  input: { db: Database; secretBox: SecretBox; apiKeyId: number; key: string; request: string },
  run: () => Promise<StoredAnswer>,
): Promise<StoredAnswer & { replayed: boolean }> {
  const { db, secretBox, apiKeyId, key } = input;
  if (key.length === 0 || key.length > 255) throw new ApiError(400, "invalid_input", "Idempotency-Key must be 1 to 255 characters", { "Idempotency-Key": ["Must be 1 to 255 characters"] });
  const requestHash = createHash("sha256").update(input.request).digest("hex");
  await db.delete(apiIdempotencyKeys).where(lt(apiIdempotencyKeys.createdAt, sql`now() - make_interval(secs => ${KEPT_MS / 1000})`));
  const [claimed] = await db.insert(apiIdempotencyKeys).values({ apiKeyId, key, requestHash }).onConflictDoNothing().returning({ key: apiIdempotencyKeys.key });
  const row = and(eq(apiIdempotencyKeys.apiKeyId, apiKeyId), eq(apiIdempotencyKeys.key, key));
  if (!claimed) {
    const [existing] = await db.select().from(apiIdempotencyKeys).where(row).limit(1);
    if (!existing) throw new ApiError(409, "idempotency_key_in_use", "The first request with this Idempotency-Key is still running: retry shortly");
    if (existing.requestHash !== requestHash) {
      throw new ApiError(409, "idempotency_key_reused", "This Idempotency-Key was used with another request: use a new key for a new request");
    }
    if (existing.status === null || typeof existing.response !== "string") {
      throw new ApiError(409, "idempotency_key_in_use", "The first request with this Idempotency-Key is still running: retry shortly");
    }
    const body = JSON.parse(await secretBox.decrypt(existing.response, binding(apiKeyId, key)));
    return { status: existing.status, body, replayed: true };
  }
  let answer: StoredAnswer;
  try {
    answer = await run();
  } catch (error) {
    await db.delete(apiIdempotencyKeys).where(row);
    throw error;
  }
  if (answer.status >= 500) await db.delete(apiIdempotencyKeys).where(row);
  else {
    const sealed = await secretBox.encrypt(JSON.stringify(answer.body), binding(apiKeyId, key));
    await db.update(apiIdempotencyKeys).set({ status: answer.status, response: sealed }).where(row);
  }
  return { ...answer, replayed: false };
}
