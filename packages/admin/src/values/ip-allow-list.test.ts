import { describe, expect, test } from "bun:test";
import { normaliseIpEntry } from "@tollgate/shared";
import { ipAllowListSchema } from "./ip-allow-list";

describe("normaliseIpEntry", () => {
  test("stores addresses compactly and ranges by their network address", () => {
    expect(normaliseIpEntry("1.2.3.4")).toBe("1.2.3.4");
    expect(normaliseIpEntry("2001:0DB8:0000::0001")).toBe("2001:db8::1");
    expect(normaliseIpEntry("10.1.2.3/8")).toBe("10.0.0.0/8");
    expect(normaliseIpEntry("2001:db8:1::/32")).toBe("2001:db8::/32");
    expect(normaliseIpEntry("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(normaliseIpEntry("::ffff:10.0.0.0/104")).toBe("10.0.0.0/8");
    expect(normaliseIpEntry("0.0.0.0/0")).toBe("0.0.0.0/0");
  });

  test("refuses what is not a four-part IPv4, an IPv6 or a valid prefix", () => {
    for (const entry of ["", "1.2.3", "0x7f.0.0.1", "127.1", "256.0.0.1", "1.2.3.4/33", "::1/129", "1.2.3.4/", "1.2.3.4/a", "fe80::1%eth0", "example.com"]) {
      expect(normaliseIpEntry(entry)).toBeNull();
    }
  });
});

describe("ipAllowListSchema", () => {
  test("normalises and deduplicates the entries, skipping blank ones", () => {
    expect(ipAllowListSchema.parse([" 10.1.2.3/8", "", "10.0.0.0/8", "::1"])).toEqual(["10.0.0.0/8", "::1"]);
  });

  test("names every bad entry", () => {
    const result = ipAllowListSchema.safeParse(["1.2.3.4", "300.1.1.1", "10.0.0.0/33"]);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      '"300.1.1.1" is not an IP address or CIDR range (v4 or v6)',
      '"10.0.0.0/33" is not an IP address or CIDR range (v4 or v6)',
    ]);
  });
});
