import { describe, expect, test } from "bun:test";
import { decideTokens, SlidingWindowTokenLimiter } from "./token-rate-limiter";

const start = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);

describe("sliding window token limiter", () => {
  test("admits while the minute's tokens are below the limit, and checking counts nothing", () => {
    const limiter = new SlidingWindowTokenLimiter();
    const fresh = limiter.check(1, 1000, start + 1000);
    expect(fresh).toMatchObject({ allowed: true, limit: 1000, remaining: 1000, retryAfterMs: 0 });
    expect(limiter.check(1, 1000, start + 1001).remaining).toBe(1000);
    limiter.consume(1, 400, start + 2000);
    limiter.consume(1, 599, start + 3000);
    const below = limiter.check(1, 1000, start + 4000);
    expect(below).toMatchObject({ allowed: true, remaining: 1 });
    // The current minute's tokens have all left the window at the end of the next minute.
    expect(below.resetMs).toBe(120_000 - 4000);
  });

  test("refuses once the tokens reach the limit, and when a request took it over", () => {
    const limiter = new SlidingWindowTokenLimiter();
    limiter.consume(1, 1000, start + 2000);
    const atLimit = limiter.check(1, 1000, start + 3000);
    expect(atLimit).toMatchObject({ allowed: false, limit: 1000, remaining: 0 });
    expect(atLimit.retryAfterMs).toBeGreaterThan(0);
    limiter.consume(2, 5000, start + 2000);
    expect(limiter.check(2, 1000, start + 3000)).toMatchObject({ allowed: false, remaining: 0 });
    // Keys are independent; zero or negative usage counts nothing.
    limiter.consume(3, 0, start + 2000);
    limiter.consume(3, -50, start + 2000);
    expect(limiter.check(3, 1000, start + 3000)).toMatchObject({ allowed: true, remaining: 1000 });
  });

  test("the previous minute's tokens decay instead of resetting at the edge", () => {
    const limiter = new SlidingWindowTokenLimiter();
    limiter.consume(1, 1200, start + 59_000);
    // Just after the edge almost all of the previous minute still counts.
    expect(limiter.check(1, 1000, start + 60_500).allowed).toBe(false);
    // A quarter into the next minute, three quarters of it (900 tokens) still count.
    expect(limiter.check(1, 1000, start + 75_000)).toMatchObject({ allowed: true, remaining: 100, resetMs: 45_000 });
    limiter.consume(1, 200, start + 75_000);
    // Half-way: 600 of the previous minute plus the 200 of this one.
    expect(limiter.check(1, 1000, start + 90_000)).toMatchObject({ allowed: true, remaining: 200 });
    // Two minutes later nothing is left.
    expect(limiter.check(1, 1000, start + 180_000)).toMatchObject({ allowed: true, remaining: 1000, resetMs: 0 });
  });

  test("a refused request passes at its retry time, and not a millisecond before", () => {
    const cases = [
      // Over the limit within this minute alone: the wait runs into the next minute.
      { consumed: [[10_000, 1500]], limit: 1000, at: 20_000 },
      { consumed: [[10_000, 1000]], limit: 1000, at: 20_000 },
      { consumed: [[0, 3000]], limit: 1000, at: 59_999 },
      // The previous minute must decay.
      { consumed: [[50_000, 900], [65_000, 300]], limit: 1000, at: 66_000 },
      { consumed: [[59_000, 3]], limit: 3, at: 60_000 },
      { consumed: [[30_000, 777], [70_000, 111]], limit: 758, at: 70_001 },
    ] as const;
    for (const { consumed, limit, at } of cases) {
      const limiter = new SlidingWindowTokenLimiter();
      for (const [time, tokens] of consumed) limiter.consume(7, tokens, start + time);
      const refused = limiter.check(7, limit, start + at);
      expect(refused.allowed).toBe(false);
      const retryAt = start + at + refused.retryAfterMs;
      expect(limiter.check(7, limit, retryAt - 1).allowed).toBe(false);
      expect(limiter.check(7, limit, retryAt).allowed).toBe(true);
    }
  });

  test("decideTokens gives the same decision for the same counts", () => {
    const limiter = new SlidingWindowTokenLimiter();
    limiter.consume(1, 700, start + 40_000);
    limiter.consume(1, 250, start + 70_000);
    for (const time of [start + 70_000, start + 80_000, start + 99_999]) {
      expect(limiter.check(1, 900, time)).toEqual(decideTokens(900, 250, 700, time));
    }
  });

  test("a key that spent its minute early is told at most 60 s, not up to two minutes, and passes then", () => {
    const limiter = new SlidingWindowTokenLimiter();
    limiter.consume(1, 3000, start + 1000);
    const refused = limiter.check(1, 1000, start + 5000);
    expect(refused.allowed).toBe(false);
    // The weight alone would wait into two thirds of the next minute (95 s); the tokens are a minute old at 61 s.
    expect(refused.retryAfterMs).toBe(56_000);
    expect(limiter.check(1, 1000, start + 60_999).allowed).toBe(false);
    expect(limiter.check(1, 1000, start + 61_000).allowed).toBe(true);
  });

  test("whatever the history, a refusal's wait is between 1 ms and the 60 s window, and a retry passes then and not before", () => {
    let seed = 11;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let refusals = 0;
    for (let run = 0; run < 500; run++) {
      const limiter = new SlidingWindowTokenLimiter();
      const limit = 100 + Math.floor(random() * 2000);
      let time = start + Math.floor(random() * 60_000);
      for (let index = Math.floor(random() * 30); index > 0; index--) {
        time += Math.floor(random() * (random() < 0.5 ? 500 : 20_000));
        const decision = limiter.check(1, limit, time);
        if (decision.allowed) {
          limiter.consume(1, Math.floor(random() * limit * 1.5), time);
          continue;
        }
        refusals++;
        expect(decision.retryAfterMs).toBeGreaterThanOrEqual(1);
        expect(decision.retryAfterMs).toBeLessThanOrEqual(60_000);
        if (decision.retryAfterMs > 1) expect(limiter.check(1, limit, time + decision.retryAfterMs - 1).allowed).toBe(false);
        time += decision.retryAfterMs;
        expect(limiter.check(1, limit, time).allowed).toBe(true);
      }
    }
    expect(refusals).toBeGreaterThan(100);
  });
});
