import { describe, expect, test } from "bun:test";
import { beginsToolCall, readToolCallDelta, toolCallDeltas } from "./tool-call-delta";

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

describe("toolCallDeltas", () => {
  test("yields each well-formed delta with its open call, none for a delta that begins a call", () => {
    const open = new Map([[0, { id: "call_1" }]]);
    const deltas = [...toolCallDeltas([{ index: 0, function: { arguments: "x" } }, 7, { index: 0, id: "call_2" }, { index: 1, id: "call_3" }], open, (call) => call.id)];
    expect(deltas.map(([delta, call]) => [delta.index, delta.id, call?.id ?? null])).toEqual([
      [0, null, "call_1"],
      [0, "call_2", null],
      [1, "call_3", null],
    ]);
  });
});
