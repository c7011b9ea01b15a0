import type { BudgetPeriod } from "@tollgate/shared";

/** A budget's spend as a write-behind commit left it: what spend alerts are decided from, off the request path. */
export interface BudgetObservation {
  /** A token's quota, a user's budget or a team's budget. */
  kind: "token" | "user" | "team";
  id: number;
  period: BudgetPeriod;
  timeZone: string;
  /** Epoch ms of the period's first instant; 0 for a lifetime budget. */
  periodStart: number;
  /** Micro-USD. */
  limit: number;
  /** Spend in the period (or in all), micro-USD. */
  spent: number;
  /** Percentages; null: the setting's. */
  thresholds: number[] | null;
}
