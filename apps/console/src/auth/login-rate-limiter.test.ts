import { describe, expect, test } from "bun:test";
import { createLoginRateLimiter, type LoginAdmission } from "./login-rate-limiter";

const limits = { freeFailures: 3, firstDelayMs: 1_000, maxDelayMs: 8_000, resetAfterMs: 60_000, perAddress: 10, addressWindowMs: 30_000 };

function retryAfter(admission: LoginAdmission): number {
  return admission.admitted ? 0 : admission.retryAfterMs;
}

describe("login rate limiter", () => {
  test("admits the free failures of a (name, address), then waits a delay that doubles with each failure, up to the maximum", () => {
    const limiter = createLoginRateLimiter(limits);
    let now = 1_000_000;
    for (let attempt = 0; attempt < 3; attempt++) expect(limiter.admit("alice", "192.0.2.1", now).admitted).toBe(true);
    for (const delay of [1_000, 2_000, 4_000, 8_000, 8_000]) {
      expect(retryAfter(limiter.admit("alice", "192.0.2.1", now))).toBe(delay);
      expect(retryAfter(limiter.admit("alice", "192.0.2.1", now + delay - 1))).toBe(1);
      now += delay;
      expect(limiter.admit("alice", "192.0.2.1", now).admitted).toBe(true);
    }
  });

  test("counts an attempt when it admits it, so attempts still being checked use up the allowance", () => {
    const limiter = createLoginRateLimiter(limits);
    const admissions = Array.from({ length: 40 }, () => limiter.admit("alice", "192.0.2.1", 5_000));
    expect(admissions.filter((admission) => admission.admitted)).toHaveLength(3);
  });

  test("failures from one address do not delay the same name from another address", () => {
    const limiter = createLoginRateLimiter(limits);
    for (let attempt = 0; attempt < 10; attempt++) limiter.admit("alice", "203.0.113.9", 5_000);
    expect(limiter.admit("alice", "203.0.113.9", 5_000).admitted).toBe(false);
    expect(limiter.admit("alice", "192.0.2.1", 5_000).admitted).toBe(true);
  });

  test("a success clears its (name, address)'s failures", () => {
    const limiter = createLoginRateLimiter(limits);
    limiter.admit("alice", "192.0.2.1", 5_000);
    limiter.admit("alice", "192.0.2.1", 5_000);
    const right = limiter.admit("alice", "192.0.2.1", 5_000);
    if (!right.admitted) throw new Error("the third attempt should be admitted");
    right.succeeded();
    for (let attempt = 0; attempt < 3; attempt++) expect(limiter.admit("alice", "192.0.2.1", 5_000).admitted).toBe(true);
    expect(limiter.admit("alice", "192.0.2.1", 5_000).admitted).toBe(false);
  });

  test("a success gives its attempt back to the address's allowance", () => {
    const limiter = createLoginRateLimiter({ ...limits, perAddress: 3 });
    limiter.admit("alice", "192.0.2.1", 5_000);
    const right = limiter.admit("alice", "192.0.2.1", 5_000);
    if (!right.admitted) throw new Error("the second attempt should be admitted");
    right.succeeded();
    expect(limiter.admit("bob", "192.0.2.1", 5_000).admitted).toBe(true);
    expect(limiter.admit("carol", "192.0.2.1", 5_000).admitted).toBe(true);
    expect(limiter.admit("dave", "192.0.2.1", 5_000).admitted).toBe(false);
  });

  test("caps the attempts of one address across names within the window", () => {
    const limiter = createLoginRateLimiter(limits);
    for (let attempt = 0; attempt < 10; attempt++) expect(limiter.admit(`guess-${attempt}`, "198.51.100.7", 1_000 + attempt).admitted).toBe(true);
    expect(retryAfter(limiter.admit("someone-else", "198.51.100.7", 2_000))).toBe(29_000);
    expect(limiter.admit("someone-else", "198.51.100.7", 31_000).admitted).toBe(true);
    expect(limiter.admit("someone-else", "198.51.100.8", 2_000).admitted).toBe(true);
  });

  test("a (name, address) without an attempt for resetAfterMs starts afresh", () => {
    const limiter = createLoginRateLimiter(limits);
    for (let attempt = 0; attempt < 4; attempt++) limiter.admit("alice", "192.0.2.1", 1_000 + attempt * 10_000);
    expect(limiter.admit("alice", "192.0.2.1", 31_001).admitted).toBe(false);
    for (let attempt = 0; attempt < 3; attempt++) expect(limiter.admit("alice", "192.0.2.1", 31_000 + 60_000 + attempt).admitted).toBe(true);
  });

  test("names are compared trimmed and without case; an unknown address is one shared address", () => {
    const limiter = createLoginRateLimiter(limits);
    for (const name of ["alice", " Alice", "ALICE "]) expect(limiter.admit(name, null, 5_000).admitted).toBe(true);
    expect(limiter.admit("alice", null, 5_000).admitted).toBe(false);
    expect(limiter.admit("bob", null, 5_000).admitted).toBe(true);
  });
});
