import type { RateLimitDecision } from "./rate-limiter";

export type { RateLimitDecision } from "./rate-limiter";

/**
 * What the gateway needs from a requests-per-minute limiter. The in-process SlidingWindowRateLimiter
 * answers synchronously; RedisRateLimiter answers with a promise while Redis is up and synchronously
 * while it falls back to per-process counting, so callers should await only a promise:
 * `const result = limiter.check(id, limit); const decision = result instanceof Promise ? await result : result;`
 */
export interface RateLimiter {
  check(key: number, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
}
