import { describe, expect, test } from "bun:test";
import { computeCost, microsToUsd, usdToMicros } from "./money";

describe("money", () => {
  test("usd strings convert to integer micro-USD", () => {
    expect(usdToMicros("2.5")).toBe(2_500_000);
    expect(usdToMicros("0.000001")).toBe(1);
    expect(microsToUsd(2_500_001)).toBe("2.500001");
  });

  test("negative or malformed amounts are refused", () => {
    expect(() => usdToMicros("-1")).toThrow();
    expect(() => usdToMicros("abc")).toThrow();
    expect(() => usdToMicros("")).toThrow();
  });

  test("cost is rounded up and cached tokens use the cached price", () => {
    const price = { inputPrice: 2_500_000, outputPrice: 10_000_000, cachedInputPrice: 1_250_000 };
    // 1 prompt token at $2.50/1M = 2.5 micro-USD -> 3
    expect(computeCost({ promptTokens: 1, completionTokens: 0, cachedTokens: 0 }, price)).toBe(3);
    // 1000 prompt of which 400 cached, 100 completion: 600*2.5 + 400*1.25 + 100*10 = 1500+500+1000
    expect(computeCost({ promptTokens: 1000, completionTokens: 100, cachedTokens: 400 }, price)).toBe(3000);
    expect(computeCost({ promptTokens: 1000, completionTokens: 100, cachedTokens: 0 }, undefined)).toBe(0);
  });
});
