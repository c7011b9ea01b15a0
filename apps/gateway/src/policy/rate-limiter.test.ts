import { describe, expect, test } from "bun:test";
import { SlidingWindowRateLimiter } from "./rate-limiter";

describe("sliding window rate limiter", () => {
  test("allows the limit within a minute and refuses the next with a retry delay", () => {
    const limiter = new SlidingWindowRateLimiter();
    const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    for (let index = 0; index < 3; index++) {
      const decision = limiter.check(1, 3, start + index);
      expect(decision.allowed).toBe(true);
      expect(decision.remaining).toBe(2 - index);
    }
    const refused = limiter.check(1, 3, start + 10_000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    // Keys are independent.
    expect(limiter.check(2, 3, start + 10_000).allowed).toBe(true);
  });

  test("the previous minute's count decays instead of resetting at the edge", () => {
    const limiter = new SlidingWindowRateLimiter();
    const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    for (let index = 0; index < 10; index++) limiter.check(1, 10, start + 59_000);
    // Just after the edge almost all of the previous minute still counts.
    const justAfter = limiter.check(1, 10, start + 60_500);
    expect(justAfter.allowed).toBe(false);
    // The refused request was told when to come back; at that time it passes.
    const retryAt = start + 60_500 + justAfter.retryAfterMs;
    expect(limiter.check(1, 10, retryAt).allowed).toBe(true);
    // Half-way through the next minute half the old count remains: 5 used, 1 from the retry.
    const later = limiter.check(1, 10, start + 90_000);
    expect(later.allowed).toBe(true);
  });

  test("a user's key (a string) counts apart from a token whose id has the same digits", () => {
    const limiter = new SlidingWindowRateLimiter();
    const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    expect(limiter.check("u7", 1, start).allowed).toBe(true);
    expect(limiter.check("u7", 1, start + 1).allowed).toBe(false);
    expect(limiter.check(7, 1, start + 1).allowed).toBe(true);
  });
});
