import { microsToUsd } from "@tollgate/shared";
import type { CachedTeam, CachedToken, CachedUser } from "../auth/cached-records";
import type { BudgetView } from "./budget-view";
import type { QuotaLedger } from "./quota-ledger";

/** USD left in the tighter of the token's quota and its owner's budget, after this instance's unwritten spend. */
export const BUDGET_REMAINING_HEADER = "x-tollgate-budget-remaining";
/** RFC 3339 UTC instant at which that budget's period resets; absent for a lifetime budget. */
export const BUDGET_RESET_HEADER = "x-tollgate-budget-reset";
/**
 * Whose limit that budget is: `token` (the key's quota), `user` (its owner's budget, shared by all their keys)
 * or `team` (the key's team's budget, shared by all of the team's keys).
 */
export const BUDGET_SCOPE_HEADER = "x-tollgate-budget-scope";

/** The budgets of a call, narrowest first (the order that settles a tie). */
const SCOPES = ["token", "user", "team"] as const;

function remainingOf(view: BudgetView, ledger: QuotaLedger): number {
  return Math.max(0, view.limit - view.spent - ledger.unwritten(view.subject));
}

/**
 * Adds the budget headers of a call by this token to `headers` (nothing when neither the token, its owner
 * nor its team has a limit): the tightest of the three. The remaining amount is this instance's view: the rows as last read or written, less
 * its own spend not yet written; other instances' spend shows once their write-behind commits. The reset
 * instant's text is built once per period and kept with the period's view.
 */
export function addBudgetHeaders(
  headers: Record<string, string>,
  ledger: QuotaLedger,
  token: CachedToken,
  user: CachedUser,
  team: CachedTeam | null = null,
): void {
  const budgets = ledger.budgets(token, user, team);
  if (!budgets.token && !budgets.user && !budgets.team) return;
  // The tighter limit wins; a tie keeps the narrower scope (the key's, then its owner's). No allocation per call.
  let view: BudgetView | null = null;
  let remaining = 0;
  let scope = "token";
  for (let index = 0; index < SCOPES.length; index++) {
    const candidateScope = SCOPES[index]!;
    const candidate = budgets[candidateScope];
    if (!candidate) continue;
    const candidateRemaining = remainingOf(candidate, ledger);
    if (view === null || candidateRemaining < remaining) {
      view = candidate;
      remaining = candidateRemaining;
      scope = candidateScope;
    }
  }
  if (view === null) return;
  headers[BUDGET_REMAINING_HEADER] = microsToUsd(remaining);
  headers[BUDGET_SCOPE_HEADER] = scope;
  if (view.window) headers[BUDGET_RESET_HEADER] = (view.resetText ??= new Date(view.window.end).toISOString());
}

/** The budget headers alone, for answers built outside a call record (stored responses). */
export function budgetHeaders(ledger: QuotaLedger, token: CachedToken, user: CachedUser, team: CachedTeam | null = null): Record<string, string> {
  const headers: Record<string, string> = {};
  addBudgetHeaders(headers, ledger, token, user, team);
  return headers;
}
