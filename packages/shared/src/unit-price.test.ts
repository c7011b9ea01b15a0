import { describe, expect, test } from "bun:test";
import { computeUnitCost, type UnitModelPrice } from "./unit-price";

const tokens = { promptTokens: 1000, completionTokens: 0, cachedTokens: 0 };
const base = { inputPrice: 2_000_000, outputPrice: 0, cachedInputPrice: null, cacheWritePrice: null, cacheWrite1hPrice: null };

describe("computeUnitCost", () => {
  test("a per-image price is looked up by size and quality, then size, then the default", () => {
    const price: UnitModelPrice = { ...base, unit: "image", unitPrice: 40_000, imagePrices: { "1024x1024/hd": 80_000, "1792x1024": 120_000 } };
    expect(computeUnitCost(tokens, { unit: "image", count: 2, size: "1024x1024", quality: "hd" }, price)).toEqual({ cost: 160_000, unit: "image", quantity: 2 });
    expect(computeUnitCost(tokens, { unit: "image", count: 1, size: "1792x1024", quality: "standard" }, price).cost).toBe(120_000);
    expect(computeUnitCost(tokens, { unit: "image", count: 3, size: "512x512", quality: "standard" }, price).cost).toBe(120_000);
  });

  test("audio seconds and characters are billed exactly and rounded up to the micro-USD", () => {
    const perSecond: UnitModelPrice = { ...base, unit: "audio_second", unitPrice: 100, imagePrices: null };
    expect(computeUnitCost(tokens, { unit: "audio_second", milliseconds: 8_470 }, perSecond)).toEqual({ cost: 847, unit: "audio_second", quantity: 8.47 });
    expect(computeUnitCost(tokens, { unit: "audio_second", milliseconds: 1 }, perSecond).cost).toBe(1);
    const perMillionCharacters: UnitModelPrice = { ...base, unit: "character", unitPrice: 15_000_000, imagePrices: null };
    expect(computeUnitCost(tokens, { unit: "character", count: 101 }, perMillionCharacters).cost).toBe(1515);
  });

  test("a per-request price bills one request whatever was measured, and falls back to tokens when nothing was served", () => {
    const perRequest: UnitModelPrice = { ...base, unit: "request", unitPrice: 2_000, imagePrices: null };
    expect(computeUnitCost(tokens, { unit: "character", count: 5 }, perRequest)).toEqual({ cost: 2_000, unit: "request", quantity: 1 });
    expect(computeUnitCost(tokens, null, perRequest)).toEqual({ cost: 2_000, unit: "token", quantity: null });
  });

  test("a call that measured another unit than the model's is billed by its tokens", () => {
    const perImage: UnitModelPrice = { ...base, unit: "image", unitPrice: 40_000, imagePrices: null };
    expect(computeUnitCost(tokens, { unit: "character", count: 5 }, perImage)).toEqual({ cost: 2_000, unit: "token", quantity: null });
  });
});
