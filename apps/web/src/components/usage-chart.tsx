import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCompact, formatNumber } from "../lib/format";
import { formatUsd } from "../lib/money";
import { type Metric, metricLabels } from "../lib/usage-metrics";


export interface UsagePoint {
  time: number;
  requests: number;
  tokens: number;
  cost: number;
}

/**
 * The dashboard's area chart. It is the only importer of recharts, and the dashboard loads it with
 * React.lazy, so that the charting library is a chunk of its own that the sign-in page never downloads.
 */
export default function UsageChart(props: { series: UsagePoint[]; metric: Metric; bucket: "hour" | "day" }) {
  const { metric, bucket } = props;
  const tickFormat = (time: number) =>
    new Date(time).toLocaleString(undefined, bucket === "hour" ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" });
  return (
    <ResponsiveContainer width="100%" height="100%">
      <AreaChart data={props.series} margin={{ top: 5, right: 10, bottom: 0, left: 0 }}>
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
  );
}
