// Hot-path cost of budget periods: finding a call's budgets (the period's view kept on the cached row, a
// clock read for a budget with a period) and writing the x-tollgate-budget-* headers, for a token without
// a limit, with a lifetime quota, and with a monthly quota in a time zone plus a user budget.
// Usage: bun bench/budget-headers.ts
import { addBudgetHeaders } from "../apps/gateway/src/accounting/budget-headers";
import { QuotaLedger } from "../apps/gateway/src/accounting/quota-ledger";
import type { LeaseBook } from "../apps/gateway/src/accounting/quota-leases";
import type { CachedToken, CachedUser } from "../apps/gateway/src/auth/cached-records";
import { BudgetWindows } from "../packages/shared/src/budget-period";
import { formatTable } from "./lib/format";

/** Only what the headers read of the lease book: this instance's unwritten spend. */
const leases = { pendingSpent: () => 1234 } as unknown as LeaseBook;
const ledger = new QuotaLedger(leases, new BudgetWindows(), Date.now);

const token = (values: Partial<CachedToken>): CachedToken => ({
  id: 1, userId: 1, teamId: null, name: "t", keyHash: "h", enabled: true, group: null, expiresAt: null, quotaLimit: null, usedQuota: 0,
  allowedModels: null, ipAllowList: null, rpmLimit: null, tpmLimit: null, secretRetiresAt: null, alertThresholds: null,
  budgetPeriod: "none", budgetTimeZone: "UTC", periodStart: null, periodUsed: 0, responseCacheTtlSeconds: null, responseCacheScope: "user", ...values,
});
const user = (values: Partial<CachedUser>): CachedUser => ({
  id: 1, name: "u", enabled: true, group: "default", balance: 0, balanceUnlimited: true, budgetLimit: null, usedTotal: 0,
  allowedModels: null, ipAllowList: null, rpmLimit: null, tpmLimit: null, rateLimitKey: "u1",
  budgetPeriod: "none", budgetTimeZone: "UTC", periodStart: null, periodUsed: 0, ...values,
});

const cases: [string, CachedToken, CachedUser][] = [
  ["no limit", token({}), user({})],
  ["lifetime quota", token({ quotaLimit: 50_000_000, usedQuota: 1_000 }), user({})],
  ["monthly quota (Europe/Paris) + monthly user budget", token({ quotaLimit: 50_000_000, budgetPeriod: "monthly", budgetTimeZone: "Europe/Paris" }), user({ budgetLimit: 90_000_000, budgetPeriod: "monthly" })],
];

/** ns per call: the best of five rounds after a warm-up round. */
function measure(body: () => void, iterations = 1_000_000): number {
  const rounds: number[] = [];
  for (let round = 0; round < 6; round++) {
    const started = Bun.nanoseconds();
    for (let index = 0; index < iterations; index++) body();
    if (round > 0) rounds.push((Bun.nanoseconds() - started) / iterations);
  }
  return Math.min(...rounds);
}

const rows = cases.map(([label, cachedToken, cachedUser]) => {
  const budgets = measure(() => ledger.budgets(cachedToken, cachedUser));
  const headers = measure(() => addBudgetHeaders({}, ledger, cachedToken, cachedUser));
  return [label, budgets.toFixed(0), headers.toFixed(0)];
});
console.log(formatTable(["token / user", "budgets() ns/call", "budgets + headers ns/call"], rows));
