import { describe, expect, test } from "bun:test";
import { createIpAllowList, isValidIpOrCidr } from "./ip-allow-list";

describe("ip allow-list", () => {
  test("single v4 addresses and CIDR ranges match", () => {
    const list = createIpAllowList(["203.0.113.7", "10.0.0.0/8"]);
    expect(list.allows("203.0.113.7")).toBe(true);
    expect(list.allows("203.0.113.8")).toBe(false);
    expect(list.allows("10.200.3.4")).toBe(true);
    expect(list.allows("11.0.0.1")).toBe(false);
  });

  test("v6 addresses and ranges match, and v4-mapped v6 compares as v4", () => {
    const list = createIpAllowList(["2001:db8::/32", "::1", "192.168.1.0/24"]);
    expect(list.allows("2001:db8:1::5")).toBe(true);
    expect(list.allows("2001:db9::1")).toBe(false);
    expect(list.allows("::1")).toBe(true);
    expect(list.allows("::ffff:192.168.1.20")).toBe(true);
    expect(list.allows("::ffff:192.168.2.20")).toBe(false);
  });

  test("garbage or missing addresses are refused and invalid entries detected", () => {
    const list = createIpAllowList(["127.0.0.1"]);
    expect(list.allows(null)).toBe(false);
    expect(list.allows("not-an-ip")).toBe(false);
    expect(isValidIpOrCidr("10.0.0.0/33")).toBe(false);
    expect(isValidIpOrCidr("300.1.1.1")).toBe(false);
    expect(isValidIpOrCidr("fe80::/10")).toBe(true);
  });
});
