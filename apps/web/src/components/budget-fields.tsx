import { useState } from "react";
import { SelectField, TextField } from "./form-fields";
import { formatDateTime } from "../lib/format";
import { formatUsdExact } from "../lib/money";

export const BUDGET_PERIOD_LABELS = { none: "No reset (lifetime)", daily: "Daily", weekly: "Weekly (from Monday)", monthly: "Monthly" } as const;
export type BudgetPeriodValue = keyof typeof BUDGET_PERIOD_LABELS;

/** The zone the browser is in, offered as the default for a new budget (the server checks any zone typed). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** `50, 80, 100` as typed: empty is the setting's thresholds (null); anything not a number the server refuses. */
export function thresholdsFrom(text: string): number[] | null {
  if (text.trim() === "") return null;
  if (text.trim().toLowerCase() === "none") return [];
  return text.split(/[,\s]+/).filter((part) => part !== "").map((part) => Number(part.replace(/%$/, "")));
}

export function thresholdsText(thresholds: number[] | null | undefined): string {
  if (thresholds === null || thresholds === undefined) return "";
  return thresholds.length === 0 ? "none" : thresholds.join(", ");
}

/**
 * The state behind BudgetFields in a form: `fields` spread onto BudgetFields, `values()` the three fields the
 * admin schemas of tokens, users and teams take alike (budgetPeriod, budgetTimeZone, alertThresholds).
 */
export function useBudgetSettings(initial: { period: BudgetPeriodValue; timeZone: string; thresholds: number[] | null | undefined }) {
  const [period, onPeriod] = useState(initial.period);
  const [timeZone, onTimeZone] = useState(initial.timeZone);
  const [thresholds, onThresholds] = useState(thresholdsText(initial.thresholds));
  return {
    fields: { period, onPeriod, timeZone, onTimeZone, thresholds, onThresholds },
    values: () => ({ budgetPeriod: period, budgetTimeZone: timeZone, alertThresholds: thresholdsFrom(thresholds) }),
  };
}

/** Period, time zone and alert thresholds of a token's quota, a user's budget or a team's budget. */
export function BudgetFields(props: {
  errors: Record<string, string[] | undefined>;
  period: BudgetPeriodValue;
  onPeriod: (period: BudgetPeriodValue) => void;
  timeZone: string;
  onTimeZone: (zone: string) => void;
  thresholds: string;
  onThresholds: (text: string) => void;
  disabled?: boolean;
  hint?: string;
}) {
  // The zone matters only to a budget that resets; the thresholds to any budget.
  const textFields = [
    { label: "Time zone", name: "budgetTimeZone", hint: "Periods start at midnight here (IANA name).", value: props.timeZone, onChange: props.onTimeZone, disabled: props.disabled || props.period === "none" },
    { label: "Alert at (%)", name: "alertThresholds", hint: "e.g. 50, 80, 100. Empty: the default; none: no alerts.", value: props.thresholds, onChange: props.onThresholds, placeholder: "default" },
  ];
  return (
    <div className="grid gap-4 sm:grid-cols-3">
      <SelectField
        label="Budget period"
        name="budgetPeriod"
        errors={props.errors}
        hint={props.hint ?? "The limit applies to each period and resets by itself."}
        options={Object.entries(BUDGET_PERIOD_LABELS)}
        value={props.period}
        disabled={props.disabled}
        onChange={(value) => props.onPeriod(value as BudgetPeriodValue)}
      />
      {textFields.map((field) => (
        <TextField key={field.name} errors={props.errors} {...field} />
      ))}
    </div>
  );
}

/** A budget in a table cell: spent of the limit in the current period, and when it resets. */
export function BudgetCell(props: { budget: { period: string; limit: number | null; spent: number; resetsAt: Date | null } }) {
  const { budget } = props;
  if (budget.limit === null) return <span className="text-slate-400">Unlimited</span>;
  return (
    <div data-testid="budget-cell">
      <div>
        {formatUsdExact(Math.max(0, budget.limit - budget.spent))} left
        <span className="text-xs text-slate-500"> of {formatUsdExact(budget.limit)}</span>
      </div>
      <div className="text-xs text-slate-500">
        {budget.period === "none" ? "lifetime" : `${budget.period}, resets ${formatDateTime(budget.resetsAt)}`}
      </div>
    </div>
  );
}
