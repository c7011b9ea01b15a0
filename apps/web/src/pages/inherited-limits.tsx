import { DetailList } from "../components/detail-list";
import { formatDateTime } from "../lib/format";
import { formatUsdExact } from "../lib/money";
import type { Outputs } from "../lib/router-types";

export type OwnerLimits = Outputs["tokens"]["ownerLimits"];

function hasAny(limits: OwnerLimits): boolean {
  return limits.allowedModels.length > 0 || limits.allowedIps.length > 0 || limits.rpmLimit !== null || limits.tpmLimit !== null || limits.budgetLimit !== null;
}

function budgetText(limits: OwnerLimits): string {
  const { budget } = limits;
  if (limits.budgetLimit === null) return "";
  const spent = `${formatUsdExact(budget.spent)} spent of ${formatUsdExact(limits.budgetLimit)}`;
  return budget.period === "none" ? `${spent} in all` : `${spent} ${budget.period}, resets ${formatDateTime(budget.resetsAt)}`;
}

/**
 * What the owner's account limits every token to (an administrator set them on the user): shown on the token
 * form so that its owner sees what binds them whatever the token says. A token can only narrow these.
 */
export function InheritedLimits(props: { limits: OwnerLimits | undefined; own: boolean }) {
  const { limits } = props;
  if (!limits || !hasAny(limits)) return null;
  const whose = props.own ? "Your account's limits" : `Limits of ${limits.name}'s account`;
  const rows: [string, string][] = [];
  if (limits.allowedModels.length > 0) rows.push(["Models", limits.allowedModels.join(", ")]);
  if (limits.allowedIps.length > 0) rows.push(["IP addresses", limits.allowedIps.join(", ")]);
  if (limits.rpmLimit !== null) rows.push(["Requests per minute", `${limits.rpmLimit}, all tokens together`]);
  if (limits.tpmLimit !== null) rows.push(["Tokens per minute", `${limits.tpmLimit}, all tokens together`]);
  if (limits.budgetLimit !== null) rows.push(["Budget", budgetText(limits)]);
  return (
    <section className="rounded-md border border-amber-200 bg-amber-50 p-3 text-sm" data-testid="inherited-limits" aria-label="Inherited limits">
      <p className="font-medium text-slate-800">{whose} (set by an administrator) bind this token too; it can only narrow them.</p>
      <DetailList rows={rows} className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1" labelClassName="text-slate-500" valueClassName="text-slate-800" />
    </section>
  );
}
