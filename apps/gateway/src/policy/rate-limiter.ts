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
 */
export class SlidingWindowRateLimiter {
  private readonly counters = new MinuteCounters();

  check(key: RateLimitKey, limit: number, now = Date.now()): RateLimitDecision {
    const state = this.counters.at(key, now);
    const elapsed = now - state.windowStart;
    const previousWeight = (WINDOW_MS - elapsed) / WINDOW_MS;
    const used = state.previous * previousWeight + state.current;
    const resetMs = WINDOW_MS - elapsed + (state.previous > 0 ? WINDOW_MS : 0);
    if (used + 1 > limit) {
      return { allowed: false, limit, remaining: 0, retryAfterMs: this.retryAfter(state, limit, elapsed), resetMs };
    }
    state.current++;
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - used - 1)), retryAfterMs: 0, resetMs };
  }

  /** Time until previous * weight + current + 1 <= limit. */
  private retryAfter(state: MinuteCount, limit: number, elapsed: number): number {
    if (state.current + 1 > limit) {
      // Even with the previous minute gone, this minute is full: wait for the next one, whose weight of
      // this minute's count must then also drop enough.
      const untilNext = WINDOW_MS - elapsed;
      const needed = state.current > 0 ? (1 - (limit - 1) / state.current) * WINDOW_MS : 0;
      return Math.ceil(untilNext + Math.max(0, needed));
    }
    const allowedPrevious = limit - 1 - state.current;
    const weightNeeded = state.previous > 0 ? allowedPrevious / state.previous : 1;
    const elapsedNeeded = (1 - weightNeeded) * WINDOW_MS;
    return Math.max(1, Math.ceil(elapsedNeeded - elapsed));
  }

  /** Drops windows idle for two minutes; called from a timer so memory follows the active keys. */
  prune(now = Date.now()): void {
    this.counters.prune(now);
  }
}
