import { DetailList } from "../components/detail-list";
import { Modal } from "../components/ui";
import { formatMs, formatNumber, formatTime } from "../lib/format";
import { formatUsdExact } from "../lib/money";
import type { Outputs } from "../lib/router-types";

export type LogRow = Outputs["logs"]["list"]["items"][number];

/** What the response cache did for a call, in words. */
const responseCacheWords: Record<string, string> = {
  hit: "hit (answered from the cache, no upstream call)",
  miss: "miss (answered by the upstream, then cached)",
  refresh: "refresh (answered by the upstream, replacing the cached answer)",
  bypass: "bypassed (x-tollgate-cache: off)",
};

/** Everything the log keeps of one call: timings, the channels tried, tokens, cost, request id, error. */
export function LogDetail(props: { row: LogRow; isAdmin: boolean; channelName: (id: number) => string; onClose: () => void }) {
  const { row } = props;
  const fields: [string, string][] = [
    ["Time", formatTime(row.createdAt)],
    ["Request id", row.requestId],
    ["Endpoint", row.endpoint],
    ["Status", `${row.status}${row.errorCode ? ` ${row.errorCode}` : ""}`],
    ["Model", row.upstreamModel && row.upstreamModel !== row.model ? `${row.model} → ${row.upstreamModel}` : row.model],
    ["Token", row.tokenName ?? "—"],
    ...(props.isAdmin
      ? ([
          ["User", row.userName ?? (row.userId ? `#${row.userId}` : "—")],
          ["Channel", row.channelName ?? (row.channelId ? `#${row.channelId}` : "none reached")],
          ["Channels tried", row.channelsTried?.length ? row.channelsTried.map(props.channelName).join(" → ") : "—"],
        ] as [string, string][])
      : []),
    ["Prompt tokens", `${formatNumber(row.promptTokens)}${row.usageEstimated ? " (counted locally: the upstream sent no usage)" : ""}`],
    ["Prompt cache", `${formatNumber(row.cachedTokens)} read · ${formatNumber(row.cacheWriteTokens)} written (5 min) · ${formatNumber(row.cacheWrite1hTokens)} written (1 h)`],
    ["Completion tokens", formatNumber(row.completionTokens)],
    ["Cost", `${formatUsdExact(row.cost)} (${formatNumber(row.cost)} micro-USD)`],
    ...(row.cacheSavings === 0 ? [] : ([["Prompt cache saved", formatUsdExact(row.cacheSavings)]] as [string, string][])),
    ["Latency", formatMs(row.latencyMs)],
    ["Time to first token", formatMs(row.firstTokenMs)],
    ["Streamed", row.stream ? "yes" : "no"],
    ...(row.responseCache === null ? [] : ([["Response cache", responseCacheWords[row.responseCache] ?? row.responseCache]] as [string, string][])),
    ["Client IP", row.clientIp ?? "—"],
  ];
  return (
    <Modal title="Request details" onClose={props.onClose} wide>
      <DetailList
        rows={fields}
        testId="log-detail"
        className="grid grid-cols-1 gap-x-4 gap-y-1.5 text-sm sm:grid-cols-[auto_minmax(0,1fr)]"
        labelClassName="text-xs font-medium text-slate-500 sm:text-sm"
        valueClassName="min-w-0 break-all font-mono text-xs text-slate-800 sm:text-sm"
      />
    </Modal>
  );
}
