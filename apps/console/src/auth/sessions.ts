import { type Database, sessions, users } from "@tollgate/db";
import { and, eq, gt, lt } from "drizzle-orm";

export const SESSION_COOKIE = "tollgate_session";
/** A session lasts this long after the last request that renewed it. */
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * However active, a session ends this long after it was created (sign in again): a stolen cookie that is
 * kept in use does not live forever.
 */
export const SESSION_MAX_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Sessions are renewed (expiry pushed, cookie re-sent) at most this often, to spare a write per request. */
const RENEW_AFTER_MS = 60 * 60 * 1000;

export interface SessionUser {
  id: number;
  name: string;
  role: "admin" | "user";
  group: string;
}

export function hashSessionSecret(secret: string): string {
  return new Bun.CryptoHasher("sha256").update(secret).digest("hex");
}

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim() || null;
  }
  return null;
}

export function sessionCookie(secret: string, options: { maxAgeMs: number; secure: boolean }): string {
  const parts = [
    `${SESSION_COOKIE}=${secret}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${Math.floor(options.maxAgeMs / 1000)}`,
  ];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie("", { maxAgeMs: 0, secure });
}

/** Creates a session and returns the cookie secret; only its SHA-256 is stored. */
export async function createSession(db: Database, userId: number, ttlMs: number): Promise<string> {
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const now = Date.now();
  // Logging in is a good moment to drop this user's dead sessions.
  await db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, new Date(now))));
  await db.insert(sessions).values({ id: hashSessionSecret(secret), userId, expiresAt: new Date(now + ttlMs) });
  return secret;
}

/**
 * The enabled user behind a session cookie, or null when the session is unknown, expired (idle past its
 * time, or older than SESSION_MAX_LIFETIME_MS) or its user is disabled. `renewed` is true when the expiry
 * was pushed, so that the caller re-sends the cookie with `maxAgeMs`: never past the absolute end.
 */
export async function resolveSession(
  db: Database,
  secret: string,
  ttlMs: number,
): Promise<{ user: SessionUser; renewed: boolean; maxAgeMs: number } | null> {
  const id = hashSessionSecret(secret);
  const now = new Date();
  const [row] = await db
    .select({
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      id: users.id,
      name: users.name,
      role: users.role,
      group: users.group,
      status: users.status,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), gt(sessions.expiresAt, now), gt(sessions.createdAt, new Date(now.getTime() - SESSION_MAX_LIFETIME_MS))))
    .limit(1);
  if (!row || row.status !== "enabled") return null;
  const endsAt = Math.min(now.getTime() + ttlMs, row.createdAt.getTime() + SESSION_MAX_LIFETIME_MS);
  let renewed = false;
  if (now.getTime() - row.lastSeenAt.getTime() > RENEW_AFTER_MS) {
    await db
      .update(sessions)
      .set({ lastSeenAt: now, expiresAt: new Date(endsAt) })
      .where(eq(sessions.id, id));
    renewed = true;
  }
  return { user: { id: row.id, name: row.name, role: row.role, group: row.group }, renewed, maxAgeMs: endsAt - now.getTime() };
}

export async function deleteSession(db: Database, secret: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.id, hashSessionSecret(secret)));
}
