import { describe, expect, test } from "bun:test";
import { addressGroup, InvalidKeyLimiter } from "./invalid-key-limiter";

describe("invalid key limiter", () => {
  test("refuses an address once it has presented the limit of invalid keys, until a minute after the first", () => {
    let clock = 1_000_000;
    const limiter = new InvalidKeyLimiter({ perMinute: 3, now: () => clock });
    for (let index = 0; index < 3; index++) {
      expect(limiter.refusedFor("203.0.113.7")).toBe(0);
      limiter.record("203.0.113.7");
      clock += 1000;
    }
    expect(limiter.refusedFor("203.0.113.7")).toBe(57_000);
    // Other addresses, and calls without a socket address, are not affected.
    expect(limiter.refusedFor("203.0.113.8")).toBe(0);
    expect(limiter.refusedFor(null)).toBe(0);
    clock = 1_000_000 + 60_000;
    expect(limiter.refusedFor("203.0.113.7")).toBe(0);
    limiter.record("203.0.113.7");
    expect(limiter.refusedFor("203.0.113.7")).toBe(0);
  });

  test("an IPv6 /64 counts as one address, and IPv4-mapped IPv6 as IPv4", () => {
    const limiter = new InvalidKeyLimiter({ perMinute: 2 });
    limiter.record("2001:db8:1:2::1");
    limiter.record("2001:db8:1:2:ffff::9");
    expect(limiter.refusedFor("2001:0db8:0001:0002::abcd")).toBeGreaterThan(0);
    expect(limiter.refusedFor("2001:db8:1:3::1")).toBe(0);
    expect(addressGroup("::ffff:198.51.100.4")).toBe("198.51.100.4");
    expect(addressGroup("198.51.100.4")).toBe("198.51.100.4");
  });

  test("tracks a bounded number of addresses, and prunes ended windows", () => {
    let clock = 0;
    const limiter = new InvalidKeyLimiter({ perMinute: 1, maxAddresses: 100, now: () => clock });
    for (let index = 0; index < 1000; index++) limiter.record(`10.0.${index >> 8}.${index & 255}`);
    expect(limiter.size).toBe(100);
    expect(limiter.refusedFor("10.0.3.231")).toBeGreaterThan(0);
    clock = 60_000;
    limiter.prune();
    expect(limiter.size).toBe(0);
  });

  test("a limit of 0 counts nothing", () => {
    const limiter = new InvalidKeyLimiter({ perMinute: 0 });
    for (let index = 0; index < 10; index++) limiter.record("203.0.113.7");
    expect(limiter.refusedFor("203.0.113.7")).toBe(0);
  });
});
