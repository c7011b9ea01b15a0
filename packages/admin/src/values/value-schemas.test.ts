import { describe, expect, test } from "bun:test";
import { valueOrNoneSchema } from "./value-schemas";

describe("valueOrNoneSchema", () => {
  const schema = valueOrNoneSchema("never", "Must be digits", (text) => (/^\d+$/.test(text) ? Number(text) : null));

  test("null and the word for none (any case, spaces around) are no value; other text is what the reader makes of it", () => {
    expect(schema.parse(null)).toBeNull();
    expect(schema.parse(" Never ")).toBeNull();
    expect(schema.parse("42")).toBe(42);
  });

  test("text the reader cannot read, and a value that is not text, are refused with the message; a missing one is required", () => {
    expect(schema.safeParse("4x").error?.issues.map((issue) => issue.message)).toEqual(["Must be digits"]);
    expect(schema.safeParse(42).error?.issues.map((issue) => issue.message)).toEqual(["Must be digits"]);
    expect(schema.safeParse(undefined).error?.issues.map((issue) => issue.message)).toEqual(["Is required"]);
  });
});
