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

describe("retry-after of a refused request", () => {
  const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

  test("a 3-per-minute key refused 7 s into a minute is told 55 s (not 73), and passes then and not a millisecond before", () => {
    const limiter = new SlidingWindowRateLimiter();
    for (const offset of [0, 1000, 2000]) expect(limiter.check(1, 3, start + offset).allowed).toBe(true);
    const refused = limiter.check(1, 3, start + 7000);
    expect(refused.allowed).toBe(false);
    // The last of the three leaves the last 60 s at 62 s.
    expect(refused.retryAfterMs).toBe(55_000);
    expect(limiter.check(1, 3, start + 7000 + refused.retryAfterMs - 1).allowed).toBe(false);
    expect(limiter.check(1, 3, start + 7000 + refused.retryAfterMs).allowed).toBe(true);
  });

  test("whatever the history, a refusal's wait is between 1 ms and the 60 s window, and a retry passes then and not before", () => {
    let seed = 23;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let refusals = 0;
    for (let run = 0; run < 500; run++) {
      const limiter = new SlidingWindowRateLimiter();
      const limit = 1 + Math.floor(random() * 10);
      let time = start + Math.floor(random() * 60_000);
      for (let index = Math.floor(random() * 40); index > 0; index--) {
        time += Math.floor(random() * (random() < 0.5 ? 500 : 20_000));
        const decision = limiter.check(1, limit, time);
        if (decision.allowed) continue;
        refusals++;
        expect(decision.retryAfterMs).toBeGreaterThanOrEqual(1);
        expect(decision.retryAfterMs).toBeLessThanOrEqual(60_000);
        // Exact up to the rounding of the weighted count (the closed form can land 1 ms late, never early).
        if (decision.retryAfterMs > 2) expect(limiter.check(1, limit, time + decision.retryAfterMs - 2).allowed).toBe(false);
        time += decision.retryAfterMs;
        expect(limiter.check(1, limit, time).allowed).toBe(true);
      }
    }
    expect(refusals).toBeGreaterThan(100);
  });
});
