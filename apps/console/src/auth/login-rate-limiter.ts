/**
 * Console sign-in attempts, limited per (user name, client address) with growing delays, plus a cap per
 * address across all names. Kept in memory, per process: a deployment of several consoles multiplies the
 * allowances by their number.
 *
 * An attempt is counted when it is admitted, before the password hash is checked, and in the same
 * synchronous step as the check of the limits: concurrent attempts cannot all slip past a limit that
 * none of them has counted yet. A successful sign-in gives its attempt back and clears that (name,
 * address)'s failures. Failures from one address never delay the same name from another address, so
 * that guessing from elsewhere cannot lock the owner out of their account.
 */
export interface LoginLimits {
  /** Failed attempts of one (name, address) admitted without delay. */
  freeFailures: number;
  /** The wait after the first failure past freeFailures; each further failure doubles it. */
  firstDelayMs: number;
  /** The longest wait between two attempts of one (name, address). */
  maxDelayMs: number;
  /** A (name, address) without an attempt for this long starts afresh; keep it above maxDelayMs. */
  resetAfterMs: number;
  /** Attempts (less the successful ones) allowed per address across all names within addressWindowMs. */
  perAddress: number;
  addressWindowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  freeFailures: 3,
  firstDelayMs: 1_000,
  maxDelayMs: 15 * 60 * 1000,
  resetAfterMs: 60 * 60 * 1000,
  perAddress: 20,
  addressWindowMs: 15 * 60 * 1000,
};

/** Keys tracked at most per map; past it the least recently used are forgotten, so a flood of names cannot exhaust memory. */
const MAX_KEYS = 50_000;

export type LoginAdmission =
  | { admitted: true; /** The password was right: gives the attempt back and clears this (name, address)'s failures. */ succeeded(): void }
  | { admitted: false; retryAfterMs: number };

export interface LoginRateLimiter {
  /** Admits and counts one attempt, or says how long to wait; `address` null is one shared unknown address. */
  admit(name: string, address: string | null, now?: number): LoginAdmission;
}

interface NameAddressFailures {
  failures: number;
  lastAttemptAt: number;
}

function touch<Value>(map: Map<string, Value>, key: string, value: Value): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_KEYS) {
    const oldest = map.keys().next().value;
    if (oldest === undefined) break;
    map.delete(oldest);
  }
}

export function createLoginRateLimiter(overrides: Partial<LoginLimits> = {}): LoginRateLimiter {
  const limits: LoginLimits = { ...DEFAULT_LOGIN_LIMITS, ...overrides };
  const byNameAndAddress = new Map<string, NameAddressFailures>();
  const byAddress = new Map<string, number[]>();

  const delayAfter = (failures: number): number => {
    if (failures < limits.freeFailures) return 0;
    const doublings = Math.min(failures - limits.freeFailures, 40);
    return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** doublings);
  };

  const nameAddressWait = (entry: NameAddressFailures | undefined, now: number): number => {
    if (entry === undefined) return 0;
    return Math.max(0, entry.lastAttemptAt + delayAfter(entry.failures) - now);
  };

  const recentAttempts = (address: string, now: number): number[] =>
    (byAddress.get(address) ?? []).filter((time) => time > now - limits.addressWindowMs);

  const addressWait = (attempts: number[], now: number): number => {
    if (attempts.length < limits.perAddress) return 0;
    const oldestCounted = attempts[attempts.length - limits.perAddress] ?? now;
    return Math.max(1, oldestCounted + limits.addressWindowMs - now);
  };

  return {
    admit(name, address, now = Date.now()) {
      const key = `${name.trim().toLowerCase()}\n${address ?? ""}`;
      let entry = byNameAndAddress.get(key);
      if (entry !== undefined && now - entry.lastAttemptAt >= limits.resetAfterMs) {
        byNameAndAddress.delete(key);
        entry = undefined;
      }
      const attempts = address === null ? [] : recentAttempts(address, now);
      const retryAfterMs = Math.max(nameAddressWait(entry, now), address === null ? 0 : addressWait(attempts, now));
      if (retryAfterMs > 0) return { admitted: false, retryAfterMs };

      // Counted as a failure now; a success gives it back.
      touch(byNameAndAddress, key, { failures: (entry?.failures ?? 0) + 1, lastAttemptAt: now });
      if (address !== null) touch(byAddress, address, [...attempts, now]);
      return {
        admitted: true,
        succeeded() {
          byNameAndAddress.delete(key);
          if (address === null) return;
          const times = byAddress.get(address);
          const index = times?.lastIndexOf(now) ?? -1;
          if (times && index !== -1) times.splice(index, 1);
        },
      };
    },
  };
}
