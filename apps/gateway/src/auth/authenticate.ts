import { hashTokenSecret } from "@tollgate/shared";
import { errors } from "../errors";
import type { GatewayServices } from "../gateway-services";
import type { CachedTeam, CachedToken, CachedUser } from "./cached-records";

export interface Caller {
  token: CachedToken;
  user: CachedUser;
  /** The token's team (its budget and limits bind the call besides the owner's); null for a personal token. */
  team: CachedTeam | null;
  /** The routing group: the token's own, else its owner's. */
  group: string;
}

/** A key that is not cached cannot be checked while the database is unreachable: try again shortly. */
function databaseUnavailable(cause: unknown): never {
  throw errors.databaseUnavailable("The gateway cannot verify this API key right now. Retry shortly.", cause);
}

/**
 * Bearer key; or the header Anthropic's clients send it in (x-api-key), or Google's (x-goog-api-key); or,
 * as Google's API also takes it, the `key` query parameter. The request log never records a URL, so a key
 * in the query stays out of it.
 */
export function readApiKey(request: Request): string | null {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    return match ? (match[1] as string).trim() : null;
  }
  const header = request.headers.get("x-api-key") ?? request.headers.get("x-goog-api-key");
  if (header !== null) return header.trim() || null;
  const queryAt = request.url.indexOf("?");
  if (queryAt === -1) return null;
  return new URLSearchParams(request.url.slice(queryAt + 1)).get("key")?.trim() || null;
}

/** What authentication reads: the two caches, and the count of invalid keys per address. */
export type AuthenticationServices = Pick<GatewayServices, "tokens" | "users" | "teams" | "invalidKeys">;

/** A key that is no key: counted against the client's address (see InvalidKeyLimiter). */
function invalidKey(services: Pick<AuthenticationServices, "invalidKeys">, clientAddress: string | null): never {
  services.invalidKeys.record(clientAddress);
  throw errors.invalidKey();
}

/**
 * Key -> token and owner from memory (a miss loads once), then every rule that does not need the body:
 * status, expiry, owner status, the key's IP allow-list and its owner's. Throws the GatewayError to answer with.
 */
export async function authenticate(services: AuthenticationServices, request: Request, clientAddress: string | null): Promise<Caller> {
  const key = readApiKey(request);
  if (!key) throw errors.missingKey();
  // An address past its invalid keys for the minute is answered from memory: only a key cached as valid passes.
  const refusedForMs = services.invalidKeys.refusedFor(clientAddress);
  if (!key.startsWith("sk-") || key.length > 256) {
    if (refusedForMs > 0) throw errors.tooManyInvalidKeys(refusedForMs);
    invalidKey(services, clientAddress);
  }
  const keyHash = hashTokenSecret(key);
  if (refusedForMs > 0 && !services.tokens.peek(keyHash)) throw errors.tooManyInvalidKeys(refusedForMs);
  const tokenResult = services.tokens.get(keyHash);
  const token = tokenResult instanceof Promise ? await tokenResult.catch(databaseUnavailable) : tokenResult;
  if (!token) invalidKey(services, clientAddress);
  // A rolled token's previous secret past its grace period is no key at all.
  if (token.secretRetiresAt !== null && token.secretRetiresAt <= Date.now()) invalidKey(services, clientAddress);
  if (!token.enabled) throw errors.disabledKey();
  if (token.expiresAt !== null && token.expiresAt <= Date.now()) throw errors.expiredKey();
  const userResult = services.users.get(token.userId);
  const user = userResult instanceof Promise ? await userResult.catch(databaseUnavailable) : userResult;
  if (!user) throw errors.invalidKey();
  if (!user.enabled) throw errors.disabledUser();
  if (token.ipAllowList && !token.ipAllowList.allows(clientAddress)) throw errors.ipNotAllowed("token");
  if (user.ipAllowList && !user.ipAllowList.allows(clientAddress)) throw errors.ipNotAllowed("user");
  // Personal tokens (most) read no third cache.
  let team: CachedTeam | null = null;
  if (token.teamId !== null) {
    const teamResult = services.teams.get(token.teamId);
    team = teamResult instanceof Promise ? await teamResult.catch(databaseUnavailable) : teamResult;
    if (!team) throw errors.invalidKey();
    if (!team.enabled) throw errors.disabledTeam();
    if (team.ipAllowList && !team.ipAllowList.allows(clientAddress)) throw errors.ipNotAllowed("team");
  }
  return { token, user, team, group: token.group ?? user.group };
}
