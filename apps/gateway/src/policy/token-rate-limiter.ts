import { MinuteCounters, type RateLimitKey, WINDOW_MS } from "./minute-counters";
import type { RateLimitDecision } from "./rate-limiter";
import type { TokenRateLimiter } from "./rate-limiter-port";

/**
 * The tokens counted `elapsed` ms after the start of the current minute, if nothing more is consumed:
 * `previous` weighted by its overlap with the last 60 s, plus `current`; past the minute's end, `current`
 * becomes the decaying previous minute.
 */
function weightedTokens(current: number, previous: number, elapsed: number): number {
  if (elapsed >= 2 * WINDOW_MS) return 0;
  if (elapsed >= WINDOW_MS) return current * ((2 * WINDOW_MS - elapsed) / WINDOW_MS);
  return previous * ((WINDOW_MS - elapsed) / WINDOW_MS) + current;
}

/** Milliseconds until the weighted count falls below `limit`, if nothing more is consumed. */
function tokensRetryAfter(limit: number, current: number, previous: number, elapsed: number): number {
  let retry: number;
  if (current >= limit) {
    // This minute alone is at the limit: wait for the next one, then for this minute's weight to drop.
    const needed = current > 0 ? (1 - limit / current) * WINDOW_MS : 0;
    retry = Math.floor(WINDOW_MS - elapsed + needed) + 1;
  } else {
    // previous * (W - t) / W + current < limit  <=>  t > (1 - (limit - current) / previous) * W
    retry = Math.max(1, Math.floor((1 - (limit - current) / previous) * WINDOW_MS - elapsed) + 1);
  }
  // The closed form can land a rounding error short of the edge: step to the first millisecond that passes.
  for (let step = 0; step < 3 && weightedTokens(current, previous, elapsed + retry) >= limit; step++) retry++;
  return retry;
}

/**
 * The tokens-per-minute decision for a key whose current minute has `current` tokens and previous minute
 * `previous`, at `now` (epoch ms). Shared by the in-process limiter and the Redis one, so both decide alike.
 * Allowed while the weighted count is below the limit; `remaining` is what is left of it before this
 * request, `resetMs` the time until every counted token has left the window.
 *
 * `lastAt` and `previousLastAt` are the times of each minute's last consumption: a minute stops counting
 * once that is a minute old (the weight alone would keep counting early tokens for up to two minutes), so a
 * refused request is told a wait of at most 60 s. Unknown, they are taken as late as they can be.
 */
export function decideTokens(
  limit: number,
  current: number,
  storedPrevious: number,
  now: number,
  lastAt = now,
  previousLastAt = now - (now % WINDOW_MS) - 1,
): RateLimitDecision {
  const elapsed = now % WINDOW_MS;
  const previous = now - previousLastAt < WINDOW_MS ? storedPrevious : 0;
  const used = weightedTokens(current, previous, elapsed);
  const resetMs = current > 0 ? 2 * WINDOW_MS - elapsed : storedPrevious > 0 ? WINDOW_MS - elapsed : 0;
  if (used < limit) {
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - used)), retryAfterMs: 0, resetMs };
  }
  let retryAfterMs = tokensRetryAfter(limit, current, previous, elapsed);
  // Once the previous minute stops counting, this one alone is below the limit; once this minute's last
  // consumption is a minute old, nothing counts (a limit below 1 token excepted).
  if (current < limit && previous > 0) retryAfterMs = Math.min(retryAfterMs, previousLastAt + WINDOW_MS - now);
  if (limit > 0) retryAfterMs = Math.min(retryAfterMs, (current > 0 ? lastAt : previousLastAt) + WINDOW_MS - now);
  return { allowed: false, limit, remaining: 0, retryAfterMs: Math.max(1, retryAfterMs), resetMs };
}

/**
 * Tokens (prompt + completion) per minute per key, with the sliding-window arithmetic of
 * SlidingWindowRateLimiter. A request is admitted while the key's tokens of the last minute are below the
 * limit; its real usage is only known when it finishes, so `check` counts nothing and `consume` adds the
 * usage afterwards. A key can therefore overshoot its limit by the tokens of the requests that were in
 * flight when it was reached (OpenAI's limits, which estimate, overshoot too). Per process; shared limits
 * across instances come with RedisRateLimiter.tokens.
 */
export class SlidingWindowTokenLimiter implements TokenRateLimiter {
  private readonly counters = new MinuteCounters();

  check(key: RateLimitKey, limit: number, now = Date.now()): RateLimitDecision {
    const count = this.counters.at(key, now);
    return decideTokens(limit, count.current, count.previous, now, count.lastAt, count.previousLastAt);
  }

  consume(key: RateLimitKey, tokens: number, now = Date.now()): void {
    if (!(tokens > 0)) return;
    const count = this.counters.at(key, now);
    count.current += tokens;
    count.lastAt = now;
  }

  /** Drops keys idle for two minutes; called from a timer so memory follows the active keys. */
  prune(now = Date.now()): void {
    this.counters.prune(now);
  }
}
