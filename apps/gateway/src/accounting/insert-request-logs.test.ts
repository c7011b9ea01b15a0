import { describe, expect, test } from "bun:test";
import { toArrayLiteral } from "./insert-request-logs";

describe("array literal for batched inserts", () => {
  test("quotes every element, escapes quotes and backslashes, and leaves nulls bare", () => {
    expect(toArrayLiteral(["plain", 'say "hi"', "back\\slash", null, 42, true])).toBe(
      '{"plain","say \\"hi\\"","back\\\\slash",NULL,"42","true"}',
    );
    expect(toArrayLiteral([])).toBe("{}");
  });

  test("gives what escaping every element gives, for strings with and without quotes or backslashes, numbers and booleans", () => {
    const escapeAll = (values: ReadonlyArray<string | number | boolean | null>) =>
      `{${values.map((value) => (value === null ? "NULL" : `"${String(value).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`)).join(",")}}`;
    const values = ["", "a", '"', "\\", '\\"', 'x"y\\z', "é 🌍", "{1,2}", "NULL", 0, -1.5, 8.47, 1e21, true, false, null];
    expect(toArrayLiteral(values)).toBe(escapeAll(values));
  });
});
