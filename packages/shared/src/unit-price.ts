import { computeCost, type ModelPrice, type TokenUsage } from "./money";

/**
 * What a model is billed by. `token`: input/output/cached prices per 1M tokens (the default). `image`: per
 * image, by size and quality (`imagePrices`, else `unitPrice`). `audio_second`: per second of audio.
 * `character`: per 1M characters of input (speech). `request`: per successful request.
 */
export const priceUnits = ["token", "image", "audio_second", "character", "request"] as const;
export type PriceUnit = (typeof priceUnits)[number];

/** A model's whole price: the token prices and, for another unit, the unit's price (all integer micro-USD). */
export interface UnitModelPrice extends ModelPrice {
  unit: PriceUnit;
  /** Micro-USD per image, per audio second, per 1M characters or per request; null for `token`. */
  unitPrice: number | null;
  /** Per image, micro-USD by `size/quality` (e.g. "1024x1024/hd") or by `size` alone; `unitPrice` otherwise. */
  imagePrices: Record<string, number> | null;
}

/**
 * What a call measured in a unit other than tokens: images made (by size/quality), audio seconds (in
 * milliseconds, so that the cost stays integer arithmetic), characters of input, or one request.
 */
export type MeteredUnits =
  | { unit: "image"; count: number; size: string; quality: string }
  | { unit: "audio_second"; milliseconds: number }
  | { unit: "character"; count: number }
  | { unit: "request" };

/** The price of one image of `size` and `quality`: the exact key, then the size alone, then the default. */
export function imageUnitPrice(price: UnitModelPrice, size: string, quality: string): number {
  const table = price.imagePrices ?? {};
  return table[`${size}/${quality}`] ?? table[size] ?? price.unitPrice ?? 0;
}

/** The quantity billed, in the unit's own terms (images, seconds, characters, requests), for the request log. */
export function billedQuantity(units: MeteredUnits): number {
  if (units.unit === "image" || units.unit === "character") return units.count;
  if (units.unit === "audio_second") return units.milliseconds / 1000;
  return 1;
}

/**
 * The cost in micro-USD of a call, rounded up so that a call is never billed below its price: by the
 * model's unit when the call measured that unit (a per-request model is billed one request whatever it
 * measured), otherwise by its tokens. Returns the unit actually billed, for the request log.
 */
export function computeUnitCost(
  usage: TokenUsage,
  units: MeteredUnits | null,
  price: UnitModelPrice | undefined,
): { cost: number; unit: PriceUnit; quantity: number | null } {
  if (!price || price.unit === "token") return { cost: computeCost(usage, price), unit: "token", quantity: null };
  if (price.unit === "request" && units) return { cost: price.unitPrice ?? 0, unit: "request", quantity: 1 };
  if (!units || units.unit !== price.unit) return { cost: computeCost(usage, price), unit: "token", quantity: null };
  const unitPrice = price.unitPrice ?? 0;
  if (units.unit === "image") {
    return { cost: units.count * imageUnitPrice(price, units.size, units.quality), unit: "image", quantity: units.count };
  }
  if (units.unit === "audio_second") {
    return { cost: Math.ceil((units.milliseconds * unitPrice) / 1000), unit: "audio_second", quantity: units.milliseconds / 1000 };
  }
  if (units.unit === "character") {
    return { cost: Math.ceil((units.count * unitPrice) / 1_000_000), unit: "character", quantity: units.count };
  }
  return { cost: unitPrice, unit: "request", quantity: 1 };
}
