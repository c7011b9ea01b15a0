import type { BudgetPeriod, BudgetWindow, BudgetWindows } from "@tollgate/shared";
import type { LeaseSubject } from "./quota-leases";

/** What a cached token or user carries of a budget (the limit is the token's quota or the user's budget). */
export interface BudgetFields {
  budgetPeriod: BudgetPeriod;
  budgetTimeZone: string;
  /** Epoch ms of the period period_used counts, as last read or written; null before any spend in a period. */
  periodStart: number | null;
  periodUsed: number;
  /** The view of the current period, kept on the cached row until the period ends (see budgetView). */
  budgetMemo?: BudgetView;
}

/** One budget as the request path sees it: the lease subject it spends from and what the row says is spent. */
export interface BudgetView {
  subject: LeaseSubject;
  limit: number;
  /** Null for a lifetime budget (no reset). */
  window: BudgetWindow | null;
  /** Spend in this period (or in all) according to the cached row. */
  spent: number;
  /** The window's end as RFC 3339 text, built the first time a header needs it. */
  resetText?: string;
}

/** A period subject: `<kind>:<id>@<start>@<period>@<zone>`; a lifetime one has no `@`. */
export function periodSubject(kind: "token" | "budget" | "team", id: number, window: BudgetWindow, period: BudgetPeriod, timeZone: string): LeaseSubject {
  return `${kind}:${id}@${window.start}@${period}@${timeZone}` as LeaseSubject;
}

export interface ParsedSubject {
  kind: "token" | "user" | "budget" | "team";
  id: number;
  /** Present for a period subject. */
  period?: { start: number; period: BudgetPeriod; timeZone: string };
}

export function parseSubject(subject: LeaseSubject): ParsedSubject {
  const colon = subject.indexOf(":");
  const kind = subject.slice(0, colon) as ParsedSubject["kind"];
  const [idText, start, period, ...zone] = subject.slice(colon + 1).split("@");
  const parsed: ParsedSubject = { kind, id: Number(idText) };
  if (start !== undefined) parsed.period = { start: Number(start), period: period as BudgetPeriod, timeZone: zone.join("@") };
  return parsed;
}

/** Spend the row counts in `window`: its period_used when it is of this period, nothing when it is older. */
export function spentInWindow(fields: BudgetFields, window: BudgetWindow): number {
  if (fields.periodStart === null || fields.periodStart < window.start) return 0;
  // Equal, or (a clock behind another instance's) newer: the row's spend counts, to be safe.
  return fields.periodUsed;
}

/**
 * The budget of a token (its quota) or a user (its budget) at `now`, or null without a limit. The view is
 * kept on the cached row and rebuilt only when its period ends or the row is reloaded, so the request path
 * does a comparison, not a string build, per call.
 */
export function budgetView(
  kind: "token" | "budget" | "team",
  id: number,
  limit: number | null,
  lifetimeUsed: number,
  fields: BudgetFields,
  windows: BudgetWindows,
  now: number,
): BudgetView | null {
  if (limit === null) return null;
  if (fields.budgetPeriod === "none") {
    const memo = fields.budgetMemo;
    if (memo && memo.spent === lifetimeUsed && memo.limit === limit) return memo;
    return (fields.budgetMemo = { subject: `${kind}:${id}` as LeaseSubject, limit, window: null, spent: lifetimeUsed });
  }
  const memo = fields.budgetMemo;
  if (memo?.window && now >= memo.window.start && now < memo.window.end && memo.limit === limit) {
    memo.spent = spentInWindow(fields, memo.window);
    return memo;
  }
  const window = windows.at(fields.budgetPeriod, fields.budgetTimeZone, now)!;
  return (fields.budgetMemo = {
    subject: periodSubject(kind, id, window, fields.budgetPeriod, fields.budgetTimeZone),
    limit,
    window,
    spent: spentInWindow(fields, window),
  });
}
