import { describe, expect, test } from "bun:test";
import { budgetWindowAt, BudgetWindows, canonicalTimeZone } from "./budget-period";

const iso = (ms: number) => new Date(ms).toISOString();

describe("budgetWindowAt", () => {
  test("a monthly period in UTC runs from the first of the month to the first of the next", () => {
    const window = budgetWindowAt("monthly", "UTC", Date.parse("2026-11-26T15:00:00Z"))!;
    expect(iso(window.start)).toBe("2026-11-01T00:00:00.000Z");
    expect(iso(window.end)).toBe("2026-12-01T00:00:00.000Z");
    const december = budgetWindowAt("monthly", "UTC", Date.parse("2026-12-31T23:59:59.999Z"))!;
    expect(iso(december.end)).toBe("2027-01-01T00:00:00.000Z");
  });

  test("the boundary instant belongs to the new period and the millisecond before it to the old one", () => {
    const boundary = Date.parse("2026-12-01T00:00:00Z");
    expect(iso(budgetWindowAt("monthly", "UTC", boundary - 1)!.start)).toBe("2026-11-01T00:00:00.000Z");
    expect(iso(budgetWindowAt("monthly", "UTC", boundary)!.start)).toBe("2026-12-01T00:00:00.000Z");
  });

  test("a daily period in a time zone starts at that zone's midnight", () => {
    const window = budgetWindowAt("daily", "Asia/Tokyo", Date.parse("2026-11-26T15:30:00Z"))!;
    expect(iso(window.start)).toBe("2026-11-26T15:00:00.000Z");
    expect(iso(window.end)).toBe("2026-11-27T15:00:00.000Z");
  });

  test("a weekly period starts on Monday at midnight local time", () => {
    // Thursday 26 November 2026, Paris (UTC+1 in winter).
    const window = budgetWindowAt("weekly", "Europe/Paris", Date.parse("2026-11-26T12:00:00Z"))!;
    expect(iso(window.start)).toBe("2026-11-22T23:00:00.000Z");
    expect(iso(window.end)).toBe("2026-11-29T23:00:00.000Z");
  });

  test("a day across a daylight-saving change is 23 or 25 hours long", () => {
    const spring = budgetWindowAt("daily", "Europe/Paris", Date.parse("2026-03-29T12:00:00Z"))!;
    expect(iso(spring.start)).toBe("2026-03-28T23:00:00.000Z");
    expect(spring.end - spring.start).toBe(23 * 3_600_000);
    const autumn = budgetWindowAt("daily", "America/New_York", Date.parse("2026-11-01T12:00:00Z"))!;
    expect(iso(autumn.start)).toBe("2026-11-01T04:00:00.000Z");
    expect(autumn.end - autumn.start).toBe(25 * 3_600_000);
  });

  test("in a zone that skips its midnight, the day starts when the clocks jump", () => {
    // Havana moved from 00:00 to 01:00 on 8 March 2026 (UTC-5 to UTC-4).
    const window = budgetWindowAt("daily", "America/Havana", Date.parse("2026-03-08T12:00:00Z"))!;
    expect(iso(window.start)).toBe("2026-03-08T05:00:00.000Z");
    const before = budgetWindowAt("daily", "America/Havana", window.start - 1)!;
    expect(before.end).toBe(window.start);
  });

  test("consecutive periods leave no gap and no overlap", () => {
    let at = Date.parse("2026-01-01T00:00:00Z");
    for (let index = 0; index < 60; index++) {
      const window = budgetWindowAt("weekly", "Australia/Lord_Howe", at)!;
      expect(window.start).toBeLessThanOrEqual(at);
      expect(window.end).toBeGreaterThan(at);
      const next = budgetWindowAt("weekly", "Australia/Lord_Howe", window.end)!;
      expect(next.start).toBe(window.end);
      at = window.end;
    }
  });

  test("no period has no window", () => {
    expect(budgetWindowAt("none", "UTC", Date.now())).toBeNull();
  });
});

describe("canonicalTimeZone", () => {
  test("IANA names are accepted in any case and returned as Intl spells them", () => {
    expect(canonicalTimeZone("utc")).toBe("UTC");
    expect(canonicalTimeZone("Europe/Paris")).toBe("Europe/Paris");
  });

  test("a name that is not a time zone is refused", () => {
    expect(canonicalTimeZone("Mars/Olympus")).toBeNull();
    expect(canonicalTimeZone("")).toBeNull();
  });
});

describe("BudgetWindows", () => {
  test("the cached window moves on when the clock reaches its end", () => {
    const windows = new BudgetWindows();
    const end = Date.parse("2026-11-27T00:00:00Z");
    expect(windows.at("daily", "UTC", end - 1)!.end).toBe(end);
    expect(windows.at("daily", "UTC", end)!.start).toBe(end);
  });
});
