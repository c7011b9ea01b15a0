import { describe, expect, test } from "bun:test";
import { parseIsoInstant } from "./expiry";

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
});
