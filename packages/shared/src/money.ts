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

/** Prices are micro-USD per 1M tokens (= USD per 1M tokens x 1e6). A null cache price means the input price. */
export interface ModelPrice {
  inputPrice: number;
  outputPrice: number;
  /** Prompt tokens read from the upstream's prompt cache. */
  cachedInputPrice: number | null;
  /** Prompt tokens written to the prompt cache with a 5-minute lifetime (Anthropic: 1.25x input). */
  cacheWritePrice: number | null;
  /** Prompt tokens written to the prompt cache with a 1-hour lifetime (Anthropic: 2x input). */
  cacheWrite1hPrice: number | null;
}

export interface TokenUsage {
  /** Every prompt token: uncached, read from the prompt cache and written to it. */
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens served from the upstream's prompt cache (a subset of promptTokens). */
  cachedTokens: number;
  /** Prompt tokens written to the upstream's prompt cache with a 5-minute lifetime (a subset of promptTokens). */
  cacheWriteTokens?: number;
  /** Prompt tokens written to the upstream's prompt cache with a 1-hour lifetime (a subset of promptTokens). */
  cacheWrite1hTokens?: number;
}

/** The prompt split into its billing classes, each clamped so that the classes never exceed the prompt. */
export interface PromptClasses {
  uncached: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
}

function tokens(value: number | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.trunc(value) : 0;
}

/**
 * The prompt's classes. An upstream that reports more cache tokens than prompt tokens is not believed past
 * the prompt: reads come first, then 1-hour writes, then 5-minute writes, each taking what is left.
 */
export function promptClasses(usage: TokenUsage): PromptClasses {
  const prompt = tokens(usage.promptTokens);
  const cacheRead = Math.min(tokens(usage.cachedTokens), prompt);
  const cacheWrite1h = Math.min(tokens(usage.cacheWrite1hTokens), prompt - cacheRead);
  const cacheWrite = Math.min(tokens(usage.cacheWriteTokens), prompt - cacheRead - cacheWrite1h);
  return { uncached: prompt - cacheRead - cacheWrite1h - cacheWrite, cacheRead, cacheWrite, cacheWrite1h };
}

/** Cost in micro-USD: each prompt class at its price, output at the output price, rounded up once at the end. */
export function computeCost(usage: TokenUsage, price: ModelPrice | undefined): number {
  if (!price) return 0;
  const classes = promptClasses(usage);
  const perMillion =
    classes.uncached * price.inputPrice +
    classes.cacheRead * (price.cachedInputPrice ?? price.inputPrice) +
    classes.cacheWrite * (price.cacheWritePrice ?? price.inputPrice) +
    classes.cacheWrite1h * (price.cacheWrite1hPrice ?? price.inputPrice) +
    tokens(usage.completionTokens) * price.outputPrice;
  return Math.ceil(perMillion / 1_000_000);
}

/**
 * What prompt caching saved on a call, in micro-USD, against the same call billed with every prompt token
 * at the input price (negative when cache writes cost more than the reads saved). Zero without a price.
 */
export function cacheSavings(usage: TokenUsage, price: ModelPrice | undefined): number {
  // Most calls touch no cache: nothing to compare, and nothing allocated to find that out.
  if (!price || !(usage.cachedTokens || usage.cacheWriteTokens || usage.cacheWrite1hTokens)) return 0;
  const classes = promptClasses(usage);
  if (classes.cacheRead + classes.cacheWrite + classes.cacheWrite1h === 0) return 0;
  const atInputPrice = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, cachedTokens: 0 };
  return computeCost(atInputPrice, price) - computeCost(usage, price);
}

/** The highest price a prompt token can be billed at (uncached, or written to the cache at either lifetime). */
export function highestPromptPrice(price: ModelPrice): number {
  return Math.max(price.inputPrice, price.cacheWritePrice ?? price.inputPrice, price.cacheWrite1hPrice ?? price.inputPrice);
}
