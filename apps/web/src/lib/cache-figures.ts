import { formatNumber } from "./format";
import { formatUsd } from "./money";

/** The rollup's prompt-cache sums (usage_hourly), as the dashboard's summary returns them. */
export interface CacheTotals {
  promptTokens: number;
  /** Prompt tokens read from the upstream's prompt cache. */
  cachedTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  /** Micro-USD saved against every prompt token at the input price; negative when writes cost more. */
  cacheSavings: number;
}

/** Cache reads as a share of all prompt tokens, e.g. "62.5%"; "—" with no prompt tokens. */
export function cacheHitRate(totals: CacheTotals): string {
  if (totals.promptTokens <= 0) return "—";
  const rate = (100 * Math.min(totals.cachedTokens, totals.promptTokens)) / totals.promptTokens;
  return `${rate.toLocaleString("en-US", { maximumFractionDigits: 1 })}%`;
}

/** What the cache saved ("saved $1.20"), or cost when writes outweighed reads ("cost $0.30 more"). */
export function cacheSavingsText(totals: CacheTotals): string {
  return totals.cacheSavings < 0 ? `cost ${formatUsd(-totals.cacheSavings)} more` : `saved ${formatUsd(totals.cacheSavings)}`;
}

/** The line under the hit rate: the savings and the tokens read and written. */
export function cacheDetail(totals: CacheTotals): string {
  const written = totals.cacheWriteTokens + totals.cacheWrite1hTokens;
  return `${cacheSavingsText(totals)} · ${formatNumber(totals.cachedTokens)} read · ${formatNumber(written)} written`;
}
