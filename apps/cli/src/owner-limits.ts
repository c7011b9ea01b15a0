import type { BudgetStatus } from "@tollgate/admin";
import { budgetJson } from "./budget-flags";
import { formatUsd } from "./format-output";

/** What a user and a team both hold: a budget, and the models, addresses and per-minute limits all their tokens share. */
export interface OwnerLimits {
  budget: BudgetStatus;
  budgetLimit: number | null;
  alertThresholds: number[] | null;
  allowedModels: string[];
  allowedIps: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
}

/**
 * A user's or a team's `--json` object: its id and name first and its creation time last, as `user` and `team`
 * commands print them, with `fields` (what that kind of owner has, its status, ownerLimitsJson) between.
 */
export function ownerJson<Fields extends object>(owner: { id: number; name: string; createdAt: Date }, fields: Fields) {
  return { id: owner.id, name: owner.name, ...fields, createdAt: owner.createdAt.toISOString() };
}

/** The budget and limits in `--json` output, as `user` and `team` commands print them. */
export function ownerLimitsJson(owner: OwnerLimits) {
  return {
    budget: budgetJson(owner.budget, owner.alertThresholds),
    models: owner.allowedModels,
    ips: owner.allowedIps,
    rpm: owner.rpmLimit,
    tpm: owner.tpmLimit,
  };
}

/** `$10.00 monthly`, `$5.00 in all`, or `none`. */
export function displayBudget(owner: OwnerLimits): string {
  if (owner.budgetLimit === null) return "none";
  return `${formatUsd(owner.budgetLimit)}${owner.budget.period === "none" ? " in all" : ` ${owner.budget.period}`}`;
}

/** The limits' lines in `show` output; `tokens` says whose tokens a per-minute limit counts together. */
export function ownerLimitFields(owner: OwnerLimits, tokens: string): [string, string][] {
  return [
    ["models", owner.allowedModels.length === 0 ? "any" : owner.allowedModels.join(", ")],
    ["ips", owner.allowedIps.length === 0 ? "any" : owner.allowedIps.join(", ")],
    ["rpm", owner.rpmLimit === null ? "none" : `${owner.rpmLimit} (${tokens} together)`],
    ["tpm", owner.tpmLimit === null ? "none" : `${owner.tpmLimit} (${tokens} together)`],
  ];
}
