import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { QuickStartPanel } from "../components/quick-start-panel";
import { ResourceTable } from "../components/resource-table";
import { PageHeader, QueryState } from "../components/ui";
import { formatCompact, formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import { rangeWindow, ranges } from "../lib/ranges";
import { useTRPC } from "../trpc";

const dashboardRanges = ["24h", "7d", "30d"] as const;
type DashboardRange = (typeof dashboardRanges)[number];
type Metric = "requests" | "tokens" | "cost";

const metricLabels: Record<Metric, string> = { requests: "Requests", tokens: "Tokens", cost: "Spend" };

function Stat(props: { label: string; value: string; detail?: string; testId?: string }) {
  return (
    <div className="card p-4">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{props.label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums text-slate-900" data-testid={props.testId}>
        {props.value}
      </p>
      {props.detail ? <p className="text-xs text-slate-500">{props.detail}</p> : null}
    </div>
  );
}

interface BreakdownRow {
  key: string;
  label: string;
  requests: number;
  tokens: number;
  cost: number;
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
        { header: "Name", className: "font-mono text-xs", cell: (row) => row.label },
        { header: "Requests", numeric: true, cell: (row) => formatNumber(row.requests) },
        { header: "Tokens", numeric: true, cell: (row) => formatNumber(row.tokens) },
        { header: "Spend", numeric: true, cell: (row) => formatUsd(row.cost) },
      ]}
    />
  );
}

export function DashboardPage(props: { me: { name: string; balance: number; balanceUnlimited: boolean; role: string } }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<DashboardRange>("24h");
  const [span, setSpan] = useState(() => rangeWindow("24h"));
  const [metric, setMetric] = useState<Metric>("requests");
  const bucket = range === "24h" ? "hour" : "day";
  const summary = useQuery(trpc.dashboard.summary.queryOptions({ ...span, bucket }));
  const data = summary.data;
  const series = (data?.series ?? []).map((point) => ({
    time: point.time.getTime(),
    requests: point.requests,
    tokens: point.promptTokens + point.completionTokens,
    cost: point.cost,
  }));
  const choose = (next: DashboardRange) => {
    setRange(next);
    setSpan(rangeWindow(next));
  };
  const tickFormat = (time: number) =>
    new Date(time).toLocaleString(undefined, bucket === "hour" ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" });

  return (
    <div className="space-y-5">
      <PageHeader
        title="Dashboard"
        description={props.me.role === "admin" ? "Usage of every user, from the hourly rollup." : "Your usage, from the hourly rollup."}
        actions={
          <div className="flex gap-1 rounded-md border border-slate-200 bg-white p-0.5">
            {dashboardRanges.map((key) => (
              <button key={key} type="button" onClick={() => choose(key)} className={`rounded px-2.5 py-1 text-sm ${range === key ? "bg-indigo-600 text-white" : "text-slate-600 hover:bg-slate-100"}`}>
                {ranges[key].label}
              </button>
            ))}
            <button type="button" className="rounded px-2.5 py-1 text-sm text-slate-600 hover:bg-slate-100" onClick={() => setSpan(rangeWindow(range))}>
              ↻
            </button>
          </div>
        }
      />
      <QueryState isPending={summary.isPending} error={summary.error} />
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Stat label="Requests" value={formatNumber(data?.totals.requests ?? 0)} detail={`${formatNumber(data?.totals.errors ?? 0)} errors`} testId="stat-requests" />
        <Stat
          label="Tokens"
          value={formatCompact((data?.totals.promptTokens ?? 0) + (data?.totals.completionTokens ?? 0))}
          detail={`${formatNumber(data?.totals.promptTokens ?? 0)} in · ${formatNumber(data?.totals.completionTokens ?? 0)} out`}
          testId="stat-tokens"
        />
        <Stat label="Spend" value={formatUsd(data?.totals.cost ?? 0)} testId="stat-spend" />
        <Stat label="Balance" value={props.me.balanceUnlimited ? "Unlimited" : formatUsd(props.me.balance)} detail={props.me.name} />
      </div>
      <div className="card p-4">
        <div className="mb-3 flex items-center justify-between">
          <h2 className="text-sm font-semibold">{metricLabels[metric]} over time</h2>
          <div className="flex gap-1">
            {(Object.keys(metricLabels) as Metric[]).map((key) => (
              <button key={key} type="button" className={`button-small ${metric === key ? "border-indigo-500 text-indigo-700" : ""}`} onClick={() => setMetric(key)}>
                {metricLabels[key]}
              </button>
            ))}
          </div>
        </div>
        <div className="h-64" data-testid="usage-chart">
          <ResponsiveContainer width="100%" height="100%">
            <AreaChart data={series} margin={{ top: 5, right: 10, bottom: 0, left: 0 }}>
              <defs>
                <linearGradient id="fill" x1="0" y1="0" x2="0" y2="1">
                  <stop offset="0%" stopColor="#4f46e5" stopOpacity={0.3} />
                  <stop offset="100%" stopColor="#4f46e5" stopOpacity={0} />
                </linearGradient>
              </defs>
              <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" vertical={false} />
              <XAxis dataKey="time" type="number" scale="time" domain={["dataMin", "dataMax"]} tickFormatter={tickFormat} tick={{ fontSize: 11 }} stroke="#94a3b8" />
              <YAxis tick={{ fontSize: 11 }} stroke="#94a3b8" width={56} tickFormatter={(value: number) => (metric === "cost" ? formatUsd(value) : formatCompact(value))} allowDecimals={false} />
              <Tooltip
                labelFormatter={(time) => new Date(Number(time)).toLocaleString()}
                formatter={(value) => [metric === "cost" ? formatUsd(Number(value)) : formatNumber(Number(value)), metricLabels[metric]]}
              />
              <Area type="monotone" dataKey={metric} stroke="#4f46e5" strokeWidth={2} fill="url(#fill)" isAnimationActive={false} />
            </AreaChart>
          </ResponsiveContainer>
        </div>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Breakdown
          title="By model"
          testId="usage-by-model"
          rows={(data?.byModel ?? []).map((row) => ({ key: row.model, label: row.model, requests: row.requests, tokens: row.promptTokens + row.completionTokens, cost: row.cost }))}
        />
        <Breakdown
          title="By token"
          testId="usage-by-token"
          rows={(data?.byToken ?? []).map((row) => ({
            key: String(row.tokenId),
            label: row.tokenName ?? `#${row.tokenId} (deleted)`,
            requests: row.requests,
            tokens: row.promptTokens + row.completionTokens,
            cost: row.cost,
          }))}
        />
      </div>
      {data && data.totals.requests === 0 ? <QuickStartPanel /> : null}
    </div>
  );
}
