import { describe, expect, test } from "bun:test";
import { changedFields } from "./audit-changes";

describe("changedFields", () => {
  test("names the fields whose values differ, nested values compared whole, the update time left out", () => {
    const before = { name: "Platform", status: "enabled", allowedModels: ["a"], rpmLimit: 60, updatedAt: "2026-11-27T10:00:00Z" };
    const after = { name: "Platform", status: "disabled", allowedModels: ["a", "b"], rpmLimit: 60, updatedAt: "2026-11-27T11:00:00Z" };
    expect(changedFields(before, after)).toEqual(["allowedModels", "status"]);
  });

  test("a field present on one side only counts as changed", () => {
    expect(changedFields({ a: 1 }, { a: 1, b: null })).toEqual(["b"]);
  });

  test("a creation or a deletion has no field list: one side is missing", () => {
    expect(changedFields(null, { name: "Platform" })).toEqual([]);
    expect(changedFields({ name: "Platform" }, null)).toEqual([]);
  });
});
