import { describe, expect, test } from "bun:test";
import { cacheSavings, computeCost, highestPromptPrice, microsToUsd, promptClasses, usdToMicros } from "./money";

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
    const price = { inputPrice: 2_500_000, outputPrice: 10_000_000, cachedInputPrice: 1_250_000, cacheWritePrice: null, cacheWrite1hPrice: null };
    // 1 prompt token at $2.50/1M = 2.5 micro-USD -> 3
    expect(computeCost({ promptTokens: 1, completionTokens: 0, cachedTokens: 0 }, price)).toBe(3);
    // 1000 prompt of which 400 cached, 100 completion: 600*2.5 + 400*1.25 + 100*10 = 1500+500+1000
    expect(computeCost({ promptTokens: 1000, completionTokens: 100, cachedTokens: 400 }, price)).toBe(3000);
    expect(computeCost({ promptTokens: 1000, completionTokens: 100, cachedTokens: 0 }, undefined)).toBe(0);
  });

  // Claude Sonnet's list prices: $3 input, $15 output, $0.30 cache read, $3.75 5-minute write, $6 1-hour write.
  const sonnet = { inputPrice: 3_000_000, outputPrice: 15_000_000, cachedInputPrice: 300_000, cacheWritePrice: 3_750_000, cacheWrite1hPrice: 6_000_000 };

  test("each prompt class is billed at its own price, rounded up once at the end", () => {
    // 1000 uncached x 3 + 2000 read x 0.3 + 400 written 5m x 3.75 + 100 written 1h x 6 + 50 out x 15 (micro-USD x 1e6)
    const usage = { promptTokens: 3500, completionTokens: 50, cachedTokens: 2000, cacheWriteTokens: 400, cacheWrite1hTokens: 100 };
    expect(computeCost(usage, sonnet)).toBe(Math.ceil((3_000_000_000 + 600_000_000 + 1_500_000_000 + 600_000_000 + 750_000_000) / 1e6));
    expect(computeCost(usage, sonnet)).toBe(6450);
    // One 5-minute write token: 3.75 micro-USD, billed 4; one 1-hour write token: 6.
    expect(computeCost({ promptTokens: 1, completionTokens: 0, cachedTokens: 0, cacheWriteTokens: 1 }, sonnet)).toBe(4);
    expect(computeCost({ promptTokens: 1, completionTokens: 0, cachedTokens: 0, cacheWrite1hTokens: 1 }, sonnet)).toBe(6);
  });

  test("unset cache prices bill cache reads and writes at the input price", () => {
    const flat = { inputPrice: 3_000_000, outputPrice: 15_000_000, cachedInputPrice: null, cacheWritePrice: null, cacheWrite1hPrice: null };
    const usage = { promptTokens: 1000, completionTokens: 0, cachedTokens: 300, cacheWriteTokens: 300, cacheWrite1hTokens: 300 };
    expect(computeCost(usage, flat)).toBe(3000);
    expect(cacheSavings(usage, flat)).toBe(0);
  });

  test("cache counts beyond the prompt are clamped: reads first, then 1-hour writes, then 5-minute writes", () => {
    expect(promptClasses({ promptTokens: 100, completionTokens: 0, cachedTokens: 60, cacheWrite1hTokens: 30, cacheWriteTokens: 30 })).toEqual({
      uncached: 0,
      cacheRead: 60,
      cacheWrite1h: 30,
      cacheWrite: 10,
    });
    expect(promptClasses({ promptTokens: 10, completionTokens: 0, cachedTokens: -5, cacheWriteTokens: Number.NaN })).toEqual({ uncached: 10, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 });
  });

  test("the cache's savings compare with every prompt token at the input price and go negative when writes outweigh reads", () => {
    // 10,000 read tokens: 30,000 at input price, 3,000 read: saved 27,000.
    expect(cacheSavings({ promptTokens: 10_000, completionTokens: 0, cachedTokens: 10_000 }, sonnet)).toBe(27_000);
    // 10,000 written for an hour: 60,000 instead of 30,000.
    expect(cacheSavings({ promptTokens: 10_000, completionTokens: 0, cachedTokens: 0, cacheWrite1hTokens: 10_000 }, sonnet)).toBe(-30_000);
    expect(cacheSavings({ promptTokens: 10_000, completionTokens: 5, cachedTokens: 0 }, sonnet)).toBe(0);
    expect(cacheSavings({ promptTokens: 10_000, completionTokens: 5, cachedTokens: 10 }, undefined)).toBe(0);
  });

  test("the highest prompt price is the dearest of input and either write price", () => {
    expect(highestPromptPrice(sonnet)).toBe(6_000_000);
    expect(highestPromptPrice({ ...sonnet, cacheWrite1hPrice: null, cacheWritePrice: null })).toBe(3_000_000);
    expect(highestPromptPrice({ ...sonnet, inputPrice: 7_000_000 })).toBe(7_000_000);
  });
});
