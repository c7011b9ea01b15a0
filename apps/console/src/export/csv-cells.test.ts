import { describe, expect, test } from "bun:test";
import { csvField, csvLine } from "./csv-cells";

describe("csv cells", () => {
  test("quotes fields with commas, quotes or line breaks, doubling quotes", () => {
    expect(csvLine(["a,b", 'say "hi"', "two\nlines", "plain"])).toBe('"a,b","say ""hi""","two\nlines",plain\r\n');
  });

  test("text that a spreadsheet would run as a formula is prefixed with a quote mark", () => {
    expect(["=1+1", "+SUM(A1)", "-2", "@cmd", "\tx", "\rx"].map(csvField)).toEqual(["'=1+1", "'+SUM(A1)", "'-2", "'@cmd", "'\tx", "\"'\rx\""]);
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
  });

  test("numbers, money, booleans, dates and empty values are written as they are", () => {
    expect(csvLine([-5, { decimal: "-0.250000" }, true, new Date("2026-01-02T03:04:05.000Z"), null, undefined])).toBe("-5,-0.250000,true,2026-01-02T03:04:05.000Z,,\r\n");
  });
});
