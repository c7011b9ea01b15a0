import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";
import { FormActions, TextField } from "../components/form-fields";
import { querySource, ResourceTable } from "../components/resource-table";
import { Badge, PageHeader } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { formatUsdExact } from "../lib/money";
import type { Outputs } from "../lib/router-types";
import { useSaveForm } from "../lib/use-save-form";
import { useTRPC } from "../trpc";

type Alert = Outputs["alerts"]["list"][number];

function deliveryState(alert: Alert): { label: string; color: "green" | "amber" | "red" | "slate" } {
  if (alert.deliveredAt) return { label: "delivered", color: "green" };
  if (alert.nextAttemptAt) return { label: alert.attempts > 0 ? `retrying (${alert.attempts} tried)` : "sending", color: "amber" };
  if (alert.attempts > 0) return { label: "gave up", color: "red" };
  return { label: "no webhook", color: "slate" };
}

function subjectOf(alert: Alert): string {
  if (alert.subjectKind === "team") return `Team ${alert.teamName}`;
  return alert.subjectKind === "token" ? `Token ${alert.tokenName} (${alert.userName})` : `User ${alert.userName}`;
}

/** One line per alert: who, which threshold of which period, and the spend then. */
export function alertSentence(alert: Alert): string {
  const period = alert.period === "none" ? "its lifetime quota" : `its ${alert.period} budget (until ${formatDateTime(alert.periodEnd)})`;
  return `${subjectOf(alert)} reached ${alert.threshold}% of ${period}: ${formatUsdExact(alert.spent)} of ${formatUsdExact(alert.limit)}.`;
}

function AlertSettingsForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.alerts.settings.queryOptions());
  const [url, setUrl] = useState<string | null>(null);
  const [secret, setSecret] = useState("");
  const [thresholds, setThresholds] = useState<string | null>(null);
  const save = useSaveForm(
    (callbacks) => trpc.alerts.updateSettings.mutationOptions(callbacks),
    () => {
      setSecret("");
      return queryClient.invalidateQueries({ queryKey: trpc.alerts.settings.queryKey() });
    },
  );
  const urlValue = url ?? current.data?.webhookUrl ?? "";
  const thresholdsValue = thresholds ?? (current.data?.thresholds ?? []).join(", ");
  const submit = save.submit(() => {
    const levels = thresholdsValue.trim() === "" ? [] : thresholdsValue.split(/[,\s]+/).filter((part) => part !== "").map((part) => Number(part.replace(/%$/, "")));
    return { webhookUrl: urlValue, thresholds: levels, ...(secret === "" ? {} : { webhookSecret: secret }) };
  });
  const errors = save.errors.fields;
  return (
    <form className="card space-y-4 p-4" onSubmit={submit} noValidate data-testid="alert-settings">
      <h2 className="text-base font-semibold">Webhook</h2>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Webhook URL" name="webhookUrl" errors={errors} hint="Alerts are POSTed here as JSON. Empty: console notices only." value={urlValue} placeholder="https://hooks.example.com/tollgate" onChange={setUrl} />
        <TextField
          label="Signing secret"
          name="webhookSecret"
          type="password"
          autoComplete="off"
          errors={errors}
          hint={current.data?.webhookSecretMasked ? `Set (${current.data.webhookSecretMasked}). Type a new one to replace it.` : "At least 16 characters; signs each body with HMAC-SHA256."}
          value={secret}
          onChange={setSecret}
        />
      </div>
      <TextField label="Default thresholds (%)" name="thresholds" errors={errors} hint="Of a token's quota or a user's budget, each alerted once per period." value={thresholdsValue} onChange={setThresholds} />
      {save.saved ? <p className="text-sm text-green-700" role="status">Saved.</p> : null}
      <FormActions error={save.errors.form} submitLabel="Save" busy={save.isPending} />
    </form>
  );
}

export function AlertsPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const alerts = useQuery(trpc.alerts.list.queryOptions({ limit: 100 }));
  return (
    <div className="space-y-6">
      <PageHeader title="Spend alerts" description="Tokens and users that reached a threshold of their budget, newest first." />
      {props.isAdmin ? <AlertSettingsForm /> : null}
      <ResourceTable
        source={querySource(alerts)}
        testId="alerts-table"
        rowKey={(alert) => alert.id}
        empty="No spend alerts yet."
        columns={[
          { header: "When", className: "whitespace-nowrap", cell: (alert) => formatDateTime(alert.createdAt) },
          { header: "Subject", cell: (alert) => subjectOf(alert) },
          { header: "Threshold", className: "whitespace-nowrap", cell: (alert) => `${alert.threshold}%` },
          { header: "Spent", className: "whitespace-nowrap", cell: (alert) => `${formatUsdExact(alert.spent)} of ${formatUsdExact(alert.limit)}` },
          { header: "Period", className: "whitespace-nowrap", cell: (alert) => (alert.period === "none" ? "lifetime" : `${alert.period}, to ${formatDateTime(alert.periodEnd)}`) },
          {
            header: "Delivery",
            cell: (alert) => {
              const state = deliveryState(alert);
              return (
                <Badge color={state.color} title={alert.lastError ?? undefined}>
                  {state.label}
                </Badge>
              );
            },
          },
        ]}
      />
    </div>
  );
}

/** The dashboard's notice: the latest alerts of the last 7 days, if any. */
export function RecentAlertsNotice() {
  const trpc = useTRPC();
  const alerts = useQuery(trpc.alerts.list.queryOptions({ limit: 5 }));
  const recent = (alerts.data ?? []).filter((alert) => alert.createdAt.getTime() > Date.now() - 7 * 86_400_000);
  if (recent.length === 0) return null;
  return (
    <div className="card border-amber-200 bg-amber-50 p-4" role="status" data-testid="spend-alert-notice">
      <p className="text-sm font-semibold text-amber-900">Spend alerts</p>
      <ul className="mt-1 space-y-0.5 text-sm text-amber-900">
        {recent.slice(0, 3).map((alert) => (
          <li key={alert.id}>{alertSentence(alert)}</li>
        ))}
      </ul>
      <Link to="/alerts" className="mt-1 inline-block text-sm font-medium text-amber-900 underline">
        All alerts
      </Link>
    </div>
  );
}
