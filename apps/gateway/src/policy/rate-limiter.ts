import { MinuteCounters, type MinuteCount, type RateLimitKey, WINDOW_MS } from "./minute-counters";

/** The outcome of one rate-limit check, with what the x-ratelimit-* headers report. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until a refused request could pass. */
  retryAfterMs: number;
  /** Milliseconds until the limit is fully available again. */
  resetMs: number;
}

/**
 * Requests per minute per key, as a sliding-window counter (the current minute's count plus the previous
 * minute's, weighted by how much of it still overlaps the last 60 s). O(1) memory per key, no burst of
 * twice the limit at a window edge. Per process; shared limits across instances come with Redis.
 *
 * The weight assumes the previous minute's requests were spread evenly; when they came early, it would keep
 * counting them after they left the last 60 s (a 3-per-minute key refused 7 s into a minute was told to wait
 * 73 s). So a minute stops counting once its last request is a minute old, which bounds every wait by the
 * window: a refused request is told when it would pass, at least 1 ms and at most 60 s away.
 */
export class SlidingWindowRateLimiter {
  private readonly counters = new MinuteCounters();

  check(key: RateLimitKey, limit: number, now = Date.now()): RateLimitDecision {
    const state = this.counters.at(key, now);
    const elapsed = now - state.windowStart;
    const previous = now - state.previousLastAt < WINDOW_MS ? state.previous : 0;
    const previousWeight = (WINDOW_MS - elapsed) / WINDOW_MS;
    const used = previous * previousWeight + state.current;
    const resetMs = WINDOW_MS - elapsed + (state.previous > 0 ? WINDOW_MS : 0);
    if (used + 1 > limit) {
      return { allowed: false, limit, remaining: 0, retryAfterMs: this.retryAfter(state, previous, limit, elapsed, now), resetMs };
    }
    state.current++;
    state.lastAt = now;
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - used - 1)), retryAfterMs: 0, resetMs };
  }

  /**
   * Time until previous * weight + current + 1 <= limit, or until the minute that keeps the request out is a
   * minute past its last request (it then no longer counts), whichever comes first.
   */
  private retryAfter(state: MinuteCount, previous: number, limit: number, elapsed: number, now: number): number {
    if (state.current + 1 > limit) {
      // Even with the previous minute gone, this minute is full: wait for the next one, whose weight of
      // this minute's count must then also drop enough.
      const untilNext = WINDOW_MS - elapsed;
      const needed = state.current > 0 ? (1 - (limit - 1) / state.current) * WINDOW_MS : 0;
      const weighted = Math.ceil(untilNext + Math.max(0, needed));
      // A limit below 1 never admits: only then is the current minute empty here.
      if (state.current === 0) return weighted;
      return Math.max(1, Math.min(weighted, state.lastAt + WINDOW_MS - now));
    }
    const allowedPrevious = limit - 1 - state.current;
    const weightNeeded = previous > 0 ? allowedPrevious / previous : 1;
    const elapsedNeeded = (1 - weightNeeded) * WINDOW_MS;
    return Math.max(1, Math.min(Math.ceil(elapsedNeeded - elapsed), state.previousLastAt + WINDOW_MS - now));
  }

  /** Drops windows idle for two minutes; called from a timer so memory follows the active keys. */
  prune(now = Date.now()): void {
    this.counters.prune(now);
  }
}
