import { describe, expect, test } from "bun:test";
import { concatBytes } from "./concat-bytes";

describe("concatBytes", () => {
  test("pieces are joined in order, with or without their counted total", () => {
    const pieces = [new Uint8Array([1, 2]), new Uint8Array([]), new Uint8Array([3])];
    expect(Array.from(concatBytes(pieces))).toEqual([1, 2, 3]);
    expect(Array.from(concatBytes(pieces, 3))).toEqual([1, 2, 3]);
    expect(concatBytes([])).toEqual(new Uint8Array(0));
  });

  test("a single piece is returned as it is, without a copy", () => {
    const only = new Uint8Array([7, 8]);
    expect(concatBytes([only])).toBe(only);
  });
});
