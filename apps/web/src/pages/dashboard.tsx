import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useState } from "react";
import { OnboardingChecklist, UnpricedModelsWarning } from "../components/onboarding-checklist";
import { QuickStartPanel } from "../components/quick-start-panel";
import { presetSpan, type RangeChoice, RangePicker } from "../components/range-picker";
import { ResourceTable } from "../components/resource-table";
import { PageHeader, QueryState } from "../components/ui";
import { formatCompact, formatNumber } from "../lib/format";
import { cacheDetail, cacheHitRate, type CacheTotals } from "../lib/cache-figures";
import { exportUrl } from "../lib/export-url";
import { formatUsd } from "../lib/money";
import { type Metric, metricLabels } from "../lib/usage-metrics";
import { useTRPC } from "../trpc";

const UsageChart = lazy(() => import("../components/usage-chart"));
const RecentAlertsNotice = lazy(() => import("./alerts").then((module) => ({ default: module.RecentAlertsNotice })));

/** Hourly points up to two days, daily ones beyond. */
const HOURLY_UP_TO_MS = 2 * 86_400_000;

function Stat(props: { label: string; value: string; detail?: string; testId?: string }) {
  return (
    <div className="card min-w-0 p-4">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{props.label}</p>
      <p className="mt-1 truncate text-2xl font-semibold tabular-nums text-slate-900" data-testid={props.testId}>
        {props.value}
      </p>
      {props.detail ? <p className="truncate text-xs text-slate-500">{props.detail}</p> : null}
    </div>
  );
}

interface BreakdownRow {
  key: string;
  label: string;
  requests: number;
  errors: number;
  tokens: number;
  cacheHitRate: string;
  cost: number;
}

interface Totals extends CacheTotals {
  requests: number;
  errors: number;
  completionTokens: number;
  cost: number;
}

function breakdownRow(key: string, label: string, totals: Totals): BreakdownRow {
  return {
    key,
    label,
    requests: totals.requests,
    errors: totals.errors,
    tokens: totals.promptTokens + totals.completionTokens,
    cacheHitRate: cacheHitRate(totals),
    cost: totals.cost,
  };
}

function Breakdown(props: { title: string; rows: BreakdownRow[]; testId: string }) {
  return (
    <ResourceTable
      title={props.title}
      source={{ rows: props.rows }}
      testId={props.testId}
      rowKey={(row) => row.key}
      empty="No usage in this range."
      columns={[
        { header: "Name", className: "max-w-48 truncate font-mono text-xs", title: (row) => row.label, cell: (row) => row.label },
        { header: "Requests", numeric: true, cell: (row) => formatNumber(row.requests) },
        { header: "Errors", numeric: true, cell: (row) => formatNumber(row.errors) },
        { header: "Tokens", numeric: true, cell: (row) => formatNumber(row.tokens) },
        { header: "Cache hit", numeric: true, cell: (row) => row.cacheHitRate },
        { header: "Spend", numeric: true, cell: (row) => formatUsd(row.cost) },
      ]}
    />
  );
}

export function DashboardPage(props: { me: { name: string; balance: number; balanceUnlimited: boolean; role: string } }) {
  const trpc = useTRPC();
  const isAdmin = props.me.role === "admin";
  const [choice, setChoice] = useState<RangeChoice>("24h");
  const [span, setSpan] = useState(() => presetSpan("24h"));
  const [metric, setMetric] = useState<Metric>("requests");
  const bucket = span.to.getTime() - span.from.getTime() <= HOURLY_UP_TO_MS ? "hour" : "day";
  const summary = useQuery(trpc.dashboard.summary.queryOptions({ ...span, bucket }));
  const data = summary.data;
  const series = (data?.series ?? []).map((point) => ({
    time: point.time.getTime(),
    requests: point.requests,
    tokens: point.promptTokens + point.completionTokens,
    cost: point.cost,
  }));

  // The rollup's hourly rows of the chosen range (per user, token, model and channel), streamed by the server.
  const csvHref = exportUrl("usage", span);

  return (
    <div className="space-y-5">
      <PageHeader
        title="Dashboard"
        description={isAdmin ? "Usage of every user, from the hourly rollup." : "Your usage, from the hourly rollup."}
        actions={
          <RangePicker
            choice={choice}
            span={span}
            onChange={(nextChoice, nextSpan) => {
              setChoice(nextChoice);
              setSpan(nextSpan);
            }}
          />
        }
      />
      <OnboardingChecklist />
      <Suspense fallback={null}>
        <RecentAlertsNotice />
      </Suspense>
      {isAdmin ? <UnpricedModelsWarning /> : null}
      <QueryState isPending={summary.isPending} error={summary.error} />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-5">
        <Stat label="Requests" value={formatNumber(data?.totals.requests ?? 0)} detail={`${formatNumber(data?.totals.errors ?? 0)} errors`} testId="stat-requests" />
        <Stat
          label="Tokens"
          value={formatCompact((data?.totals.promptTokens ?? 0) + (data?.totals.completionTokens ?? 0))}
          detail={`${formatNumber(data?.totals.promptTokens ?? 0)} in · ${formatNumber(data?.totals.completionTokens ?? 0)} out`}
          testId="stat-tokens"
        />
        <Stat label="Spend" value={formatUsd(data?.totals.cost ?? 0)} testId="stat-spend" />
        {data ? <Stat label="Prompt cache hit rate" value={cacheHitRate(data.totals)} detail={cacheDetail(data.totals)} testId="stat-cache" /> : null}
        <Stat label="Balance" value={props.me.balanceUnlimited ? "Unlimited" : formatUsd(props.me.balance)} detail={props.me.name} />
      </div>
      <div className="card min-w-0 p-4">
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          <h2 className="text-sm font-semibold">{metricLabels[metric]} over time</h2>
          <div className="flex flex-wrap gap-1" role="group" aria-label="Chart metric">
            {(Object.keys(metricLabels) as Metric[]).map((key) => (
              <button key={key} type="button" aria-pressed={metric === key} className={`button-small ${metric === key ? "border-indigo-500 text-indigo-700" : ""}`} onClick={() => setMetric(key)}>
                {metricLabels[key]}
              </button>
            ))}
            <a className="button-small" href={csvHref} download>
              Export CSV
            </a>
          </div>
        </div>
        <div className="h-64" data-testid="usage-chart">
          <Suspense fallback={<p className="p-4 text-sm text-slate-500">Loading chart…</p>}>
            <UsageChart series={series} metric={metric} bucket={bucket} />
          </Suspense>
        </div>
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <Breakdown title="By model" testId="usage-by-model" rows={(data?.byModel ?? []).map((row) => breakdownRow(row.model, row.model, row))} />
        <Breakdown
          title="By token"
          testId="usage-by-token"
          rows={(data?.byToken ?? []).map((row) => breakdownRow(String(row.tokenId), row.tokenName ?? `#${row.tokenId} (deleted)`, row))}
        />
        {isAdmin ? (
          <>
            <Breakdown
              title="By user"
              testId="usage-by-user"
              rows={(data?.byUser ?? []).map((row) => breakdownRow(String(row.userId), row.userName ?? `#${row.userId} (deleted)`, row))}
            />
            <Breakdown
              title="By channel"
              testId="usage-by-channel"
              rows={(data?.byChannel ?? []).map((row) =>
                breakdownRow(String(row.channelId), row.channelId === 0 ? "(no channel reached)" : (row.channelName ?? `#${row.channelId} (deleted)`), row),
              )}
            />
          </>
        ) : null}
      </div>
      {data && data.totals.requests === 0 ? <QuickStartPanel /> : null}
    </div>
  );
}
