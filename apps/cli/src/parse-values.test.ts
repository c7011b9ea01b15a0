import { describe, expect, test } from "bun:test";
import { CommandError } from "./command-error";
import { parseExpiry, parseIsoInstant } from "./parse-expiry";
import { normaliseIpEntry } from "./parse-ip-allow-list";
import { parseHttpBaseUrl, parseInteger, parseUsd, parseUsdOrUnlimited } from "./parse-values";

describe("parseIsoInstant", () => {
  test("reads dates and date-times, UTC unless an offset is given", () => {
    expect(parseIsoInstant("2030-01-31")?.toISOString()).toBe("2030-01-31T00:00:00.000Z");
    expect(parseIsoInstant("2030-01-31T18:05")?.toISOString()).toBe("2030-01-31T18:05:00.000Z");
    expect(parseIsoInstant("2030-01-31T18:05:09.5Z")?.toISOString()).toBe("2030-01-31T18:05:09.500Z");
    expect(parseIsoInstant("2030-01-31T18:05:09-05:30")?.toISOString()).toBe("2030-01-31T23:35:09.000Z");
    expect(parseIsoInstant("2028-02-29")?.toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });

  test("refuses dates that are not on the calendar or not ISO 8601", () => {
    for (const text of ["2030-02-29", "2030-13-01", "2030-04-31", "2030-01-01T25:00Z", "2030-01-01T10:60Z", "2030-1-1", "tomorrow", "1893456000", "2030-01-01T10:00+25:00"]) {
      expect(parseIsoInstant(text)).toBeNull();
    }
  });

  test("an expiry must lie in the future, and never means none", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(parseExpiry("never", "expires", now)).toBeNull();
    expect(parseExpiry("2030-01-01T00:00:01Z", "expires", now)?.toISOString()).toBe("2030-01-01T00:00:01.000Z");
    expect(() => parseExpiry("2030-01-01T00:00:00Z", "expires", now)).toThrow(CommandError);
  });
});

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

describe("amounts, integers and URLs", () => {
  test("USD amounts become exact micro-USD", () => {
    expect(parseUsd("0.000001", "x")).toBe(1);
    expect(parseUsd(".5", "x")).toBe(500_000);
    expect(parseUsd("3.", "x")).toBe(3_000_000);
    expect(parseUsdOrUnlimited("Unlimited", "x")).toBeNull();
    for (const text of ["1e3", "-1", "+1", "0x10", "Infinity", "1,5", "1.0000001"]) {
      expect(() => parseUsd(text, "x")).toThrow(CommandError);
    }
  });

  test("integers stay within a Postgres integer", () => {
    expect(parseInteger("-7", "priority", -2_147_483_648)).toBe(-7);
    expect(parseInteger("2147483647", "rpm", 1)).toBe(2_147_483_647);
    expect(() => parseInteger("2147483648", "rpm", 1)).toThrow(CommandError);
    expect(() => parseInteger("1e2", "rpm", 1)).toThrow(CommandError);
  });

  test("base URLs lose trailing slashes", () => {
    expect(parseHttpBaseUrl("https://api.example.com/v1///", "base-url")).toBe("https://api.example.com/v1");
    expect(parseHttpBaseUrl("http://localhost:11434", "base-url")).toBe("http://localhost:11434");
  });
});
