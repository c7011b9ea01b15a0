import { microsToUsd } from "@tollgate/shared";
import type { CachedToken, CachedUser } from "../auth/cached-records";
import type { BudgetView } from "./budget-view";
import type { QuotaLedger } from "./quota-ledger";

/** USD left in the tighter of the token's quota and its owner's budget, after this instance's unwritten spend. */
export const BUDGET_REMAINING_HEADER = "x-tollgate-budget-remaining";
/** RFC 3339 UTC instant at which that budget's period resets; absent for a lifetime budget. */
export const BUDGET_RESET_HEADER = "x-tollgate-budget-reset";
/** Whose limit that budget is: `token` (the key's quota) or `user` (its owner's budget, shared by all their keys). */
export const BUDGET_SCOPE_HEADER = "x-tollgate-budget-scope";

function remainingOf(view: BudgetView, ledger: QuotaLedger): number {
  return Math.max(0, view.limit - view.spent - ledger.unwritten(view.subject));
}

/**
 * Adds the budget headers of a call by this token to `headers` (nothing when neither the token nor its
 * owner has a limit). The remaining amount is this instance's view: the rows as last read or written, less
 * its own spend not yet written; other instances' spend shows once their write-behind commits. The reset
 * instant's text is built once per period and kept with the period's view.
 */
export function addBudgetHeaders(headers: Record<string, string>, ledger: QuotaLedger, token: CachedToken, user: CachedUser): void {
  const { token: tokenBudget, user: userBudget } = ledger.budgets(token, user);
  if (!tokenBudget && !userBudget) return;
  let view: BudgetView;
  let remaining: number;
  if (tokenBudget && userBudget) {
    const tokenRemaining = remainingOf(tokenBudget, ledger);
    const userRemaining = remainingOf(userBudget, ledger);
    [view, remaining] = userRemaining < tokenRemaining ? [userBudget, userRemaining] : [tokenBudget, tokenRemaining];
  } else {
    view = (tokenBudget ?? userBudget)!;
    remaining = remainingOf(view, ledger);
  }
  headers[BUDGET_REMAINING_HEADER] = microsToUsd(remaining);
  headers[BUDGET_SCOPE_HEADER] = view === userBudget ? "user" : "token";
  if (view.window) headers[BUDGET_RESET_HEADER] = (view.resetText ??= new Date(view.window.end).toISOString());
}

/** The budget headers alone, for answers built outside a call record (stored responses). */
export function budgetHeaders(ledger: QuotaLedger, token: CachedToken, user: CachedUser): Record<string, string> {
  const headers: Record<string, string> = {};
  addBudgetHeaders(headers, ledger, token, user);
  return headers;
}
