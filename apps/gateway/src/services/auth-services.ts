import type { Database } from "@tollgate/db";
import type { WrittenUsage } from "../accounting/usage-writer";
import { type CachedTeam, type CachedToken, type CachedUser, loadTeamById, loadTokenByHash, loadUserById } from "../auth/cached-records";
import { CoarseClock } from "../auth/coarse-clock";
import { LoadingCache } from "../auth/loading-cache";
import type { DatabaseCircuit } from "../database-circuit";
import type { GatewayOptions } from "../gateway-options";
import { createIpAllowList, type IpAllowList } from "../policy/ip-allow-list";
import type { Job } from "./jobs";

/** The caches a request's authentication reads, and the totals the write-behind feeds back into them. */
export interface AuthServices {
  tokens: LoadingCache<string, CachedToken>;
  users: LoadingCache<number, CachedUser>;
  teams: LoadingCache<number, CachedTeam>;
  /** id -> key hash of every token seen, so that totals written by id (and NOTIFYs by id) reach the cached row. */
  tokenHashById: Map<number, string>;
  trustedProxies: IpAllowList | null;
  /** Caches take the totals a commit returned (this process's writes, and replays of other spools). */
  applyTotals(written: WrittenUsage): void;
  jobs: Job[];
}

export function createAuthServices(input: {
  db: Database;
  circuit: DatabaseCircuit;
  options: Pick<GatewayOptions, "cacheMaxAgeMs" | "trustedProxies">;
}): AuthServices {
  const { db, circuit, options } = input;
  const clock = new CoarseClock();
  const tokenHashById = new Map<number, string>();
  // Unknown keys are remembered apart from the tokens (a flood of them evicts only older unknown keys), for
  // 30 s or until a NOTIFY says a token was created or rolled under that hash, on every instance at once.
  // Cache ages are told by a clock read from memory: the warm path compares two numbers, and reads no system clock.
  const tokens = new LoadingCache<string, CachedToken>((hash) => circuit.run(() => loadTokenByHash(db, hash)), {
    maxEntries: 200_000,
    maxAbsentEntries: 100_000,
    negativeTtlMs: 30_000,
    maxAgeMs: options.cacheMaxAgeMs,
    now: clock.now,
    onLoaded: (hash, token) => tokenHashById.set(token.id, hash),
  });
  const users = new LoadingCache<number, CachedUser>((id) => circuit.run(() => loadUserById(db, id)), {
    maxEntries: 100_000,
    negativeTtlMs: 30_000,
    maxAgeMs: options.cacheMaxAgeMs,
    now: clock.now,
  });
  const teams = new LoadingCache<number, CachedTeam>((id) => circuit.run(() => loadTeamById(db, id)), {
    maxEntries: 20_000,
    negativeTtlMs: 30_000,
    maxAgeMs: options.cacheMaxAgeMs,
    now: clock.now,
  });
  return {
    tokens,
    users,
    teams,
    tokenHashById,
    trustedProxies: options.trustedProxies.length > 0 ? createIpAllowList(options.trustedProxies) : null,
    applyTotals({ tokenTotals, userBalances, tokenPeriods, userPeriods, userTotals, teamTotals, teamPeriods }) {
      for (const [id, total] of teamTotals ?? []) teams.update(id, (team) => (team.usedTotal = total));
      for (const [id, period] of teamPeriods ?? []) teams.update(id, (team) => Object.assign(team, period));
      for (const [id, total] of tokenTotals) {
        const hash = tokenHashById.get(id);
        if (hash) tokens.update(hash, (token) => (token.usedQuota = total));
      }
      for (const [id, period] of tokenPeriods ?? []) {
        const hash = tokenHashById.get(id);
        if (hash) tokens.update(hash, (token) => Object.assign(token, period));
      }
      for (const [id, balance] of userBalances) users.update(id, (user) => (user.balance = balance));
      for (const [id, total] of userTotals ?? []) users.update(id, (user) => (user.usedTotal = total));
      for (const [id, period] of userPeriods ?? []) users.update(id, (user) => Object.assign(user, period));
    },
    jobs: [{ name: "cache-clock", intervalMs: clock.resolutionMs, run: clock.tick }],
  };
}
