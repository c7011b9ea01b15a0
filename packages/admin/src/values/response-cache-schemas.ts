import { z } from "zod";

/** The longest an answer may stay in the response cache: a week (the gateway's own bound too). */
export const MAX_RESPONSE_CACHE_TTL_SECONDS = 7 * 24 * 3600;

export const responseCacheTtlSchema = z
  .number()
  .int("The cache TTL is a whole number of seconds")
  .min(1, "The cache TTL is at least 1 second")
  .max(MAX_RESPONSE_CACHE_TTL_SECONDS, `The cache TTL is at most ${MAX_RESPONSE_CACHE_TTL_SECONDS} seconds (a week)`);

export const responseCacheScopeSchema = z.enum(["user", "token", "team", "group"]);

/**
 * The team and group scopes share one user's cached answers with other users (every token of the team, every
 * user of the routing group): only an administrator may set them. Returns the field error for anyone else's
 * write, or null.
 */
export function groupScopeRefusal(scope: string | undefined): Record<string, string[]> | null {
  if (scope === "group") return { responseCacheScope: ["Only an administrator can share a token's cached answers with its group"] };
  if (scope === "team") return { responseCacheScope: ["Only an administrator can share a token's cached answers with its team"] };
  return null;
}

/** The team scope needs a token of a team. Returns the field error, or null. */
export function teamScopeRefusal(scope: string | undefined, teamId: number | null): Record<string, string[]> | null {
  return scope === "team" && teamId === null ? { responseCacheScope: ["Only a token that belongs to a team can share cached answers with its team"] } : null;
}
