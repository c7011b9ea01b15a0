export const WINDOW_MS = 60_000;

/**
 * What a limiter counts by: a token's id (a number), or a string for a count shared by several tokens
 * (`u{id}`, a user's tokens together; CachedUser.rateLimitKey).
 */
export type RateLimitKey = number | string;

/** One key's counts: the minute starting at windowStart (epoch ms) and the minute before it. */
export interface MinuteCount {
  windowStart: number;
  current: number;
  previous: number;
  /** Epoch ms of the last event counted in the current minute; 0 while it has none. */
  lastAt: number;
  /**
   * Epoch ms of the last event of the previous minute; 0 when it had none. Once it is a minute old, nothing
   * of that minute is in the last 60 s any more: the limiters then stop counting it instead of estimating.
   */
  previousLastAt: number;
}

/**
 * Per-key counts of the current and the previous minute, rolled forward lazily when a key is touched in a
 * later minute. The sliding-window limiters weigh `previous` by how much of that minute still overlaps
 * the last 60 s. O(1) memory per active key.
 */
export class MinuteCounters {
  private readonly counts = new Map<RateLimitKey, MinuteCount>();

  /** The key's counts as of `now`, created or rolled forward to the minute of `now`. */
  at(key: RateLimitKey, now: number): MinuteCount {
    const windowStart = now - (now % WINDOW_MS);
    let count = this.counts.get(key);
    if (!count) {
      count = { windowStart, current: 0, previous: 0, lastAt: 0, previousLastAt: 0 };
      this.counts.set(key, count);
    } else if (count.windowStart !== windowStart) {
      const adjacent = windowStart - count.windowStart === WINDOW_MS;
      count.previous = adjacent ? count.current : 0;
      count.previousLastAt = adjacent ? count.lastAt : 0;
      count.current = 0;
      count.lastAt = 0;
      count.windowStart = windowStart;
    }
    return count;
  }

  /** Drops keys idle for two minutes (their counts no longer weigh anything). */
  prune(now: number): void {
    for (const [key, count] of this.counts) {
      if (now - count.windowStart > 2 * WINDOW_MS) this.counts.delete(key);
    }
  }
}
