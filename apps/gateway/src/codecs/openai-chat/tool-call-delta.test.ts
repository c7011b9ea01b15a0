import { describe, expect, test } from "bun:test";
import { beginsToolCall, readToolCallDelta } from "./tool-call-delta";

describe("tool-call deltas", () => {
  test("a delta is read with its index, id, name and arguments, empty strings as absent", () => {
    expect(readToolCallDelta({ index: 2, id: "call_1", function: { name: "f", arguments: "{\"a\"" } })).toEqual({ index: 2, id: "call_1", name: "f", arguments: "{\"a\"" });
    expect(readToolCallDelta({ id: "", function: { arguments: "" } })).toEqual({ index: 0, id: null, name: null, arguments: null });
    expect(readToolCallDelta("not an object")).toBeNull();
  });

  test("a call begins at a new index, or at the same index with another id; a delta without an id continues", () => {
    const continued = readToolCallDelta({ index: 0, function: { arguments: "1" } })!;
    const other = readToolCallDelta({ index: 0, id: "call_2", function: { name: "g" } })!;
    const same = readToolCallDelta({ index: 0, id: "call_1" })!;
    expect(beginsToolCall(continued, undefined)).toBe(true);
    expect(beginsToolCall(continued, "call_1")).toBe(false);
    expect(beginsToolCall(same, "call_1")).toBe(false);
    expect(beginsToolCall(other, "call_1")).toBe(true);
  });
});
