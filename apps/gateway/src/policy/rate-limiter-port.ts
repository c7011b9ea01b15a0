import type { RateLimitKey } from "./minute-counters";
import type { RateLimitDecision } from "./rate-limiter";

export type { RateLimitKey } from "./minute-counters";
export type { RateLimitDecision } from "./rate-limiter";

/**
 * What the gateway needs from a requests-per-minute limiter. The in-process SlidingWindowRateLimiter
 * answers synchronously; RedisRateLimiter answers with a promise while Redis is up and synchronously
 * while it falls back to per-process counting, so callers should await only a promise:
 * `const result = limiter.check(id, limit); const decision = result instanceof Promise ? await result : result;`
 */
export interface RateLimiter {
  check(key: RateLimitKey, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
}

/**
 * What the gateway needs from a tokens-per-minute limiter (SlidingWindowTokenLimiter in process,
 * RedisRateLimiter.tokens shared). `check` admits while the key's tokens of the last minute are below the
 * limit and counts nothing (a promise only while Redis answers, as for RateLimiter); `consume` adds a
 * finished request's prompt + completion tokens, never waits for Redis and never throws.
 */
export interface TokenRateLimiter {
  check(key: RateLimitKey, limit: number): RateLimitDecision | Promise<RateLimitDecision>;
  consume(key: RateLimitKey, tokens: number): void;
}
