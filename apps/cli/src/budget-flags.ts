import type { BudgetStatus } from "@tollgate/admin";
import { formatUsd, usdForJson } from "./format-output";

/**
 * `--alert-at 50,80,100`: percentages; `default` (null) follows the setting, `none` (empty) turns alerts
 * off. Text that is not a number becomes NaN, which the admin schema refuses with its own message.
 */
export function thresholdsFromText(value: string | undefined): number[] | null | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim().toLowerCase();
  if (trimmed === "default") return null;
  if (trimmed === "none" || trimmed === "") return [];
  return trimmed.split(",").map((part) => (/^\d+$/.test(part.trim()) ? Number(part.trim()) : Number.NaN));
}

/** The labels of the budget fields' flags, for the admin schemas' messages. */
export const budgetFlagLabels = { budgetPeriod: "--period", budgetTimeZone: "--time-zone", alertThresholds: "--alert-at" };

/** A budget's lines in `show` output: period and zone, spend in the period, reset. */
export function budgetFields(budget: BudgetStatus, thresholds: number[] | null): [string, string][] {
  const fields: [string, string][] = [["period", budget.period === "none" ? "none (lifetime)" : `${budget.period} (${budget.timeZone})`]];
  if (budget.limit !== null) {
    fields.push([budget.period === "none" ? "spent" : "spent this period", `${formatUsd(budget.spent)} of ${formatUsd(budget.limit)}`]);
  }
  if (budget.resetsAt) fields.push(["resets", budget.resetsAt.toISOString()]);
  fields.push(["alerts at", thresholds === null ? "the default thresholds" : thresholds.length === 0 ? "none" : thresholds.map((level) => `${level}%`).join(", ")]);
  return fields;
}

export function budgetJson(budget: BudgetStatus, thresholds: number[] | null) {
  return {
    period: budget.period,
    timeZone: budget.timeZone,
    limit: usdForJson(budget.limit),
    spent: usdForJson(budget.spent),
    remaining: usdForJson(budget.limit === null ? null : Math.max(0, budget.limit - budget.spent)),
    periodStart: budget.periodStart?.toISOString() ?? null,
    resetsAt: budget.resetsAt?.toISOString() ?? null,
    alertThresholds: thresholds,
  };
}
