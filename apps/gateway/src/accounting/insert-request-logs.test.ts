import { describe, expect, test } from "bun:test";
import { toArrayLiteral } from "./insert-request-logs";

describe("array literal for batched inserts", () => {
  test("quotes every element, escapes quotes and backslashes, and leaves nulls bare", () => {
    expect(toArrayLiteral(["plain", 'say "hi"', "back\\slash", null, 42, true])).toBe(
      '{"plain","say \\"hi\\"","back\\\\slash",NULL,"42","true"}',
    );
    expect(toArrayLiteral([])).toBe("{}");
  });
});
