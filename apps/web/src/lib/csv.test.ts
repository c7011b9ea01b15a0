import { describe, expect, test } from "bun:test";
import { toCsv } from "./csv";

describe("toCsv", () => {
  test("quotes fields with commas, quotes or line breaks, and leaves empty values empty", () => {
    expect(toCsv(["a", "b", "c"], [["plain", 'say "hi", twice', null], [1, "two\nlines", true]])).toBe('a,b,c\r\nplain,"say ""hi"", twice",\r\n1,"two\nlines",true\r\n');
  });
});
