/**
 * Failed console logins counted per user name and per client IP in a sliding window, in memory (one
 * process; a multi-instance deployment multiplies the allowance by the number of instances).
 */
export interface LoginLimits {
  /** Failed attempts allowed per name within the window. */
  perName: number;
  /** Failed attempts allowed per client IP within the window. */
  perIp: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perName: 5, perIp: 20, windowMs: 15 * 60 * 1000 };

/** Keys tracked at most; past it the oldest are forgotten, so a flood of names cannot exhaust memory. */
const MAX_KEYS = 50_000;

export interface LoginRateLimiter {
  /** Milliseconds until another attempt is allowed, or 0 when one is allowed now. */
  retryAfterMs(name: string, ip: string | null, now?: number): number;
  recordFailure(name: string, ip: string | null, now?: number): void;
  /** A successful login clears the name's failures (not the IP's). */
  recordSuccess(name: string): void;
}

export function createLoginRateLimiter(limits: LoginLimits = DEFAULT_LOGIN_LIMITS): LoginRateLimiter {
  const failures = new Map<string, number[]>();

  const recent = (key: string, now: number): number[] => {
    const times = (failures.get(key) ?? []).filter((time) => time > now - limits.windowMs);
    if (times.length === 0) failures.delete(key);
    else failures.set(key, times);
    return times;
  };

  const wait = (key: string, allowed: number, now: number): number => {
    const times = recent(key, now);
    if (times.length < allowed) return 0;
    const oldestCounted = times[times.length - allowed] ?? now;
    return Math.max(1, oldestCounted + limits.windowMs - now);
  };

  const add = (key: string, now: number) => {
    const times = recent(key, now);
    times.push(now);
    failures.delete(key);
    failures.set(key, times);
    while (failures.size > MAX_KEYS) {
      const oldest = failures.keys().next().value;
      if (oldest === undefined) break;
      failures.delete(oldest);
    }
  };

  const nameKey = (name: string) => `name:${name.trim().toLowerCase()}`;

  return {
    retryAfterMs(name, ip, now = Date.now()) {
      const byName = wait(nameKey(name), limits.perName, now);
      const byIp = ip ? wait(`ip:${ip}`, limits.perIp, now) : 0;
      return Math.max(byName, byIp);
    },
    recordFailure(name, ip, now = Date.now()) {
      add(nameKey(name), now);
      if (ip) add(`ip:${ip}`, now);
    },
    recordSuccess(name) {
      failures.delete(nameKey(name));
    },
  };
}
