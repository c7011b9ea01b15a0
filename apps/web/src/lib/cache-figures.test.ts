import { describe, expect, test } from "bun:test";
import { cacheDetail, cacheHitRate, cacheSavingsText } from "./cache-figures";

const base = { promptTokens: 8_000, cachedTokens: 5_000, cacheWriteTokens: 1_000, cacheWrite1hTokens: 500, cacheSavings: 13_500_000 };

describe("prompt-cache figures on the dashboard", () => {
  test("the hit rate is cache reads over every prompt token", () => {
    expect(cacheHitRate(base)).toBe("62.5%");
    expect(cacheHitRate({ ...base, cachedTokens: 1, promptTokens: 3 })).toBe("33.3%");
    expect(cacheHitRate({ ...base, cachedTokens: 0 })).toBe("0%");
    expect(cacheHitRate({ ...base, promptTokens: 0, cachedTokens: 0 })).toBe("—");
  });

  test("what the cache saved reads as a saving, or as a cost when writes outweighed reads", () => {
    expect(cacheSavingsText(base)).toBe("saved $13.50");
    expect(cacheSavingsText({ ...base, cacheSavings: -300_000 })).toBe("cost $0.30 more");
    expect(cacheSavingsText({ ...base, cacheSavings: 0 })).toBe("saved $0.00");
  });

  test("the detail line gives the savings, the tokens read and the tokens written at either lifetime", () => {
    expect(cacheDetail(base)).toBe("saved $13.50 · 5,000 read · 1,500 written");
  });
});
