import { type TokenGrantedLimits, tokens } from "@tollgate/db";
import { microsToUsd } from "@tollgate/shared";
import { type SQL, sql } from "drizzle-orm";
import { isIpEntryWithin } from "../values/ip-range-within";

/** A token write, after input parsing; an absent field is not part of the write. */
export interface TokenChanges {
  group?: string | null;
  status?: "enabled" | "disabled";
  quotaLimit?: number | null;
  expiresAt?: Date | null;
  allowedModels?: string[];
  allowedIps?: string[];
  rpmLimit?: number | null;
  tpmLimit?: number | null;
}

/** A token as stored, with the ceilings an administrator set on it. */
export interface TokenLimits {
  group: string | null;
  status: "enabled" | "disabled";
  quotaLimit: number | null;
  expiresAt: Date | null;
  allowedModels: string[];
  allowedIps: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
  grantedLimits: TokenGrantedLimits;
}

/**
 * The ceilings an administrator's write sets (console or CLI): one per limit the write names, at the value
 * it writes (null or empty: no ceiling), and a disable that only an administrator can undo. Limits the
 * write leaves out keep their ceilings.
 */
export function grantedLimitsOf(changes: TokenChanges): TokenGrantedLimits {
  const granted: TokenGrantedLimits = {};
  if (changes.quotaLimit !== undefined) granted.quotaLimit = changes.quotaLimit;
  if (changes.expiresAt !== undefined) granted.expiresAt = changes.expiresAt?.toISOString() ?? null;
  if (changes.allowedModels !== undefined) granted.allowedModels = changes.allowedModels;
  if (changes.allowedIps !== undefined) granted.allowedIps = changes.allowedIps;
  if (changes.rpmLimit !== undefined) granted.rpmLimit = changes.rpmLimit;
  if (changes.tpmLimit !== undefined) granted.tpmLimit = changes.tpmLimit;
  if (changes.status !== undefined) granted.disabled = changes.status === "disabled";
  return granted;
}

/** `granted_limits` merged with a patch in the UPDATE itself, so that concurrent writes do not lose keys. */
export function mergeGrantedLimits(patch: TokenGrantedLimits): SQL {
  return sql`${tokens.grantedLimits} || ${JSON.stringify(patch)}::jsonb`;
}

function usd(micros: number): string {
  return microsToUsd(micros).replace(/\.?0+$/, "");
}

function few(items: readonly string[]): string {
  const shown = items.slice(0, 8).join(", ");
  return items.length > 8 ? `${shown} and ${items.length - 8} more` : shown;
}

function sameSet(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((item) => right.includes(item));
}

function quotaError(value: number | null, ceiling: number | null | undefined): string | null {
  if (ceiling === null || ceiling === undefined) return null;
  if (value !== null && value <= ceiling) return null;
  return `An administrator capped this token's quota at ${usd(ceiling)} USD: enter that or less`;
}

function expiryError(value: Date | null, ceiling: string | null | undefined): string | null {
  if (ceiling === null || ceiling === undefined) return null;
  if (value !== null && value.getTime() <= new Date(ceiling).getTime()) return null;
  return `An administrator set this token to expire by ${ceiling}: choose that time or an earlier one`;
}

function modelsError(value: readonly string[], ceiling: readonly string[] | undefined): string | null {
  if (ceiling === undefined || ceiling.length === 0) return null;
  if (value.length > 0 && value.every((model) => ceiling.includes(model))) return null;
  return `An administrator limited this token to ${few(ceiling)}: choose among them`;
}

function ipsError(value: readonly string[], ceiling: readonly string[] | undefined): string | null {
  if (ceiling === undefined || ceiling.length === 0) return null;
  if (value.length > 0 && value.every((entry) => ceiling.some((range) => isIpEntryWithin(entry, range)))) return null;
  return `An administrator limited this token to ${few(ceiling)}: every entry must lie within them`;
}

function perMinuteError(value: number | null, ceiling: number | null | undefined, what: string): string | null {
  if (ceiling === null || ceiling === undefined) return null;
  if (value !== null && value <= ceiling) return null;
  return `An administrator allows this token at most ${ceiling} ${what} per minute: enter that or less`;
}

/**
 * Why an owner who is not an administrator may not make `changes` to their token `current`, by field;
 * empty when they may. They may narrow any limit and widen it again up to what an administrator granted
 * (removing a limit the administrator set counts as widening past it); they may not change the group, nor
 * enable a token an administrator disabled. A value left as it is is never refused.
 */
export function ownerEditErrors(current: TokenLimits, changes: TokenChanges): Record<string, string[]> {
  const granted = current.grantedLimits;
  const errors: Record<string, string[]> = {};
  const refuse = (field: string, message: string | null) => {
    if (message !== null) errors[field] = [message];
  };
  if (changes.group !== undefined && changes.group !== current.group) {
    refuse("group", "Only an administrator can change a token's group");
  }
  if (changes.status === "enabled" && current.status !== "enabled" && granted.disabled === true) {
    refuse("status", "An administrator disabled this token: only an administrator can enable it");
  }
  if (changes.quotaLimit !== undefined && changes.quotaLimit !== current.quotaLimit) {
    refuse("quotaLimit", quotaError(changes.quotaLimit, granted.quotaLimit));
  }
  if (changes.expiresAt !== undefined && changes.expiresAt?.getTime() !== current.expiresAt?.getTime()) {
    refuse("expiresAt", expiryError(changes.expiresAt, granted.expiresAt));
  }
  if (changes.allowedModels !== undefined && !sameSet(changes.allowedModels, current.allowedModels)) {
    refuse("allowedModels", modelsError(changes.allowedModels, granted.allowedModels));
  }
  if (changes.allowedIps !== undefined && !sameSet(changes.allowedIps, current.allowedIps)) {
    refuse("allowedIps", ipsError(changes.allowedIps, granted.allowedIps));
  }
  if (changes.rpmLimit !== undefined && changes.rpmLimit !== current.rpmLimit) {
    refuse("rpmLimit", perMinuteError(changes.rpmLimit, granted.rpmLimit, "requests"));
  }
  if (changes.tpmLimit !== undefined && changes.tpmLimit !== current.tpmLimit) {
    refuse("tpmLimit", perMinuteError(changes.tpmLimit, granted.tpmLimit, "tokens"));
  }
  return errors;
}

/** The limits an administrator set on a token's owner, which bind every token of theirs. */
export interface OwnerLimits {
  allowedModels: string[];
  allowedIps: string[];
  rpmLimit: number | null;
  tpmLimit: number | null;
}

/**
 * Why a user who is not an administrator may not give their own token `changes`, by field, against the
 * limits an administrator set on the user: a model outside the user's list, an IP entry outside the user's
 * ranges, a per-minute limit above the user's. A limit the token leaves empty or null is no widening (the
 * user's limit applies to it), so it is never refused.
 */
export function ownerLimitErrors(owner: OwnerLimits, changes: TokenChanges): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const outsideModels = (changes.allowedModels ?? []).filter((model) => owner.allowedModels.length > 0 && !owner.allowedModels.includes(model));
  if (outsideModels.length > 0) {
    errors.allowedModels = [`An administrator limited your account to ${few(owner.allowedModels)}: ${few(outsideModels)} cannot be allowed`];
  }
  const outsideIps = (changes.allowedIps ?? []).filter(
    (entry) => owner.allowedIps.length > 0 && !owner.allowedIps.some((range) => isIpEntryWithin(entry, range)),
  );
  if (outsideIps.length > 0) {
    errors.allowedIps = [`An administrator limited your account to ${few(owner.allowedIps)}: ${few(outsideIps)} lies outside`];
  }
  const perMinute = (field: "rpmLimit" | "tpmLimit", what: string) => {
    const value = changes[field];
    const ceiling = owner[field];
    if (value === undefined || value === null || ceiling === null || value <= ceiling) return;
    errors[field] = [`An administrator allows your account at most ${ceiling} ${what} per minute across all its tokens: enter that or less`];
  };
  perMinute("rpmLimit", "requests");
  perMinute("tpmLimit", "tokens");
  return errors;
}
