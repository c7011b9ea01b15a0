import { type BudgetPeriod, budgetWindowAt, isBudgetPeriod } from "@tollgate/shared";

/** A budget as the console and the CLI show it. */
export interface BudgetStatus {
  period: BudgetPeriod;
  timeZone: string;
  /** Micro-USD, per period or in all; null: no limit. */
  limit: number | null;
  /** Spend in the current period (or in all), micro-USD, as the gateways last wrote it (within about a second). */
  spent: number;
  /** The current period's first instant; null for a lifetime budget. */
  periodStart: Date | null;
  /** When it resets; null for a lifetime budget. */
  resetsAt: Date | null;
}

/** The current period's spend of a row, from its period columns (a row of an older period has spent nothing in this one). */
export function budgetStatus(
  row: { budgetPeriod: string; budgetTimeZone: string; periodStart: Date | null; periodUsed: number },
  limit: number | null,
  lifetimeUsed: number,
  now = Date.now(),
): BudgetStatus {
  const period = isBudgetPeriod(row.budgetPeriod) ? row.budgetPeriod : "none";
  const window = budgetWindowAt(period, row.budgetTimeZone, now);
  if (!window) return { period, timeZone: row.budgetTimeZone, limit, spent: lifetimeUsed, periodStart: null, resetsAt: null };
  const rowStart = row.periodStart?.getTime() ?? null;
  const spent = rowStart !== null && rowStart >= window.start ? row.periodUsed : 0;
  return { period, timeZone: row.budgetTimeZone, limit, spent, periodStart: new Date(window.start), resetsAt: new Date(window.end) };
}

/**
 * Changing a budget's period or time zone starts its count afresh: the row's period spend was counted in
 * periods of the old setting, which the new one cannot compare with.
 */
export function periodResetFor(
  changes: { budgetPeriod?: string; budgetTimeZone?: string },
  current: { budgetPeriod: string; budgetTimeZone: string },
): { periodStart: null; periodUsed: 0 } | Record<string, never> {
  const periodChanged = changes.budgetPeriod !== undefined && changes.budgetPeriod !== current.budgetPeriod;
  const zoneChanged = changes.budgetTimeZone !== undefined && changes.budgetTimeZone !== current.budgetTimeZone;
  return periodChanged || zoneChanged ? { periodStart: null, periodUsed: 0 } : {};
}
