/** Money is integer micro-USD everywhere: 1 USD = 1,000,000. */
export const MICROS_PER_USD = 1_000_000;

/** "2.5" -> 2_500_000. Rejects negatives, NaN and more than 6 decimals of precision loss silently rounded. */
export function usdToMicros(usd: string | number): number {
  const value = typeof usd === "number" ? usd : Number(usd.trim());
  if (typeof usd === "string" && usd.trim() === "") throw new Error("empty amount");
  if (!Number.isFinite(value)) throw new Error(`not a number: ${usd}`);
  if (value < 0) throw new Error(`negative amount: ${usd}`);
  const micros = Math.round(value * MICROS_PER_USD);
  if (!Number.isSafeInteger(micros)) throw new Error(`amount too large: ${usd}`);
  return micros;
}

export function microsToUsd(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const absolute = Math.abs(micros);
  const whole = Math.floor(absolute / MICROS_PER_USD);
  const fraction = String(absolute % MICROS_PER_USD).padStart(6, "0");
  return `${sign}${whole}.${fraction}`;
}

/** Prices are micro-USD per 1M tokens (= USD per 1M tokens x 1e6). */
export interface ModelPrice {
  inputPrice: number;
  outputPrice: number;
  cachedInputPrice: number | null;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the upstream's prompt cache (a subset of promptTokens). */
  cachedTokens: number;
  /** Prompt tokens written to the upstream's prompt cache with a 5-minute lifetime (a subset of promptTokens). */
  cacheWriteTokens?: number;
  /** Prompt tokens written to the upstream's prompt cache with a 1-hour lifetime (a subset of promptTokens). */
  cacheWrite1hTokens?: number;
}

/** Cost in micro-USD, rounded up so that a call is never billed below its price. */
export function computeCost(usage: TokenUsage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  const cached = Math.min(usage.cachedTokens, usage.promptTokens);
  const uncached = usage.promptTokens - cached;
  const cachedPrice = price.cachedInputPrice ?? price.inputPrice;
  const perMillion = uncached * price.inputPrice + cached * cachedPrice + usage.completionTokens * price.outputPrice;
  return Math.ceil(perMillion / 1_000_000);
}
