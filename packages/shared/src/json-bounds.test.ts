import { describe, expect, test } from "bun:test";
import { deepChain } from "./fuzz-support";
import { MAX_JSON_DEPTH, measureJson, nestsDeeperThan } from "./json-bounds";

describe("measureJson", () => {
  test("a value within both limits passes; scalars have no depth", () => {
    expect(measureJson({ a: [1, { b: "x" }] }, 3, 10)).toBeNull();
    expect(measureJson("text", 0)).toBeNull();
    expect(measureJson(null, 0)).toBeNull();
  });

  test("one level past the depth is found, arrays and objects alike", () => {
    expect(measureJson(deepChain(MAX_JSON_DEPTH, "object"), MAX_JSON_DEPTH)).toBeNull();
    expect(measureJson(deepChain(MAX_JSON_DEPTH + 1, "object"), MAX_JSON_DEPTH)).toBe("depth");
    expect(measureJson(deepChain(MAX_JSON_DEPTH + 1, "array"), MAX_JSON_DEPTH)).toBe("depth");
  });

  test("a chain far deeper than the call stack is measured without recursion", () => {
    expect(measureJson(deepChain(1_000_000, "array"), MAX_JSON_DEPTH)).toBe("depth");
  });

  test("more containers than the budget are found, however flat", () => {
    const wide = Array.from({ length: 20 }, () => ({}));
    expect(measureJson(wide, 5, 21)).toBeNull();
    expect(measureJson(wide, 5, 20)).toBe("nodes");
  });
});

describe("nestsDeeperThan", () => {
  test("agrees with measureJson on the depth, one level either side of the limit", () => {
    for (const shape of ["object", "array"] as const) {
      expect(nestsDeeperThan(deepChain(MAX_JSON_DEPTH, shape), MAX_JSON_DEPTH)).toBe(false);
      expect(nestsDeeperThan(deepChain(MAX_JSON_DEPTH + 1, shape), MAX_JSON_DEPTH)).toBe(true);
    }
    expect(nestsDeeperThan({ a: [1, { b: "x" }], c: {} }, 3)).toBe(false);
    expect(nestsDeeperThan("text", 0)).toBe(false);
  });

  test("a chain far deeper than the call stack is answered after at most the limit's frames", () => {
    expect(nestsDeeperThan(deepChain(1_000_000, "object"), MAX_JSON_DEPTH)).toBe(true);
  });
});
