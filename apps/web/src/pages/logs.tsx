import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ResourceTable, RowButton } from "../components/resource-table";
import { LoadOlder } from "../components/search-pager";
import { Badge, PageHeader } from "../components/ui";
import { formatMs, formatNumber, formatTime } from "../lib/format";
import { exportUrl } from "../lib/export-url";
import { formatUsdExact } from "../lib/money";
import { type RangeKey, rangeWindow, ranges } from "../lib/ranges";
import { useTRPC } from "../trpc";
import { LogDetail, type LogRow } from "./log-detail";
import { LogRetentionForm } from "./log-retention-form";

type StatusFilter = "all" | "success" | "error";

function FilterSelect(props: { label: string; value: string; onChange: (value: string) => void; options: { value: string; label: string }[] }) {
  return (
    <label className="flex flex-col gap-1 text-xs font-medium text-slate-500">
      {props.label}
      <select className="input min-w-36" value={props.value} onChange={(event) => props.onChange(event.target.value)} aria-label={props.label}>
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function LogsPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const [range, setRange] = useState<RangeKey | "all">("24h");
  const [span, setSpan] = useState(() => rangeWindow("24h"));
  const [tokenId, setTokenId] = useState("");
  const [model, setModel] = useState("");
  const [status, setStatus] = useState<StatusFilter>("all");
  const [userId, setUserId] = useState("");
  const [channelId, setChannelId] = useState("");
  const tokens = useQuery(trpc.tokens.list.queryOptions({ offset: 0, limit: 200 }));
  const models = useQuery(trpc.models.available.queryOptions());
  const users = useQuery({ ...trpc.users.list.queryOptions({ offset: 0, limit: 200 }), enabled: props.isAdmin });
  const channels = useQuery({ ...trpc.channels.list.queryOptions(), enabled: props.isAdmin });

  const input = {
    limit: 50,
    ...(range === "all" ? {} : span),
    tokenId: tokenId ? Number(tokenId) : undefined,
    model: model || undefined,
    status: status === "all" ? undefined : status,
    userId: userId ? Number(userId) : undefined,
    channelId: channelId ? Number(channelId) : undefined,
  };
  const logs = useInfiniteQuery(trpc.logs.list.infiniteQueryOptions(input, { getNextPageParam: (page) => page.nextCursor }));
  const rows = logs.data?.pages.flatMap((page) => page.items) ?? [];
  const [detail, setDetail] = useState<LogRow | null>(null);
  const channelName = (id: number) => channels.data?.find((channel) => channel.id === id)?.name ?? `#${id}`;
  // The whole range with these filters, streamed by the server (not only the rows loaded here).
  const csvHref = exportUrl("logs", range === "all" ? { from: new Date(0), to: new Date(Date.now() + 60_000) } : span, {
    tokenId: input.tokenId,
    model: input.model,
    status: input.status,
    userId: input.userId,
    channelId: input.channelId,
  });
  const refresh = () => {
    if (range !== "all") setSpan(rangeWindow(range));
    void logs.refetch();
  };

  return (
    <div>
      <PageHeader
        title="Logs"
        description="Every call to /v1, newest first."
        actions={
          <>
            <a className="button" href={csvHref} download>
              Export CSV
            </a>
            <button type="button" className="button" onClick={refresh} disabled={logs.isFetching}>
              {logs.isFetching ? "Refreshing…" : "Refresh"}
            </button>
          </>
        }
      />
      <div className="card mb-4 flex flex-wrap gap-3 p-3">
        <FilterSelect
          label="Time"
          value={range}
          onChange={(value) => {
            setRange(value as RangeKey | "all");
            if (value !== "all") setSpan(rangeWindow(value as RangeKey));
          }}
          options={[...Object.entries(ranges).map(([value, { label }]) => ({ value, label })), { value: "all", label: "All time" }]}
        />
        <FilterSelect label="Token" value={tokenId} onChange={setTokenId} options={[{ value: "", label: "All tokens" }, ...(tokens.data?.items ?? []).map((token) => ({ value: String(token.id), label: token.name }))]} />
        <FilterSelect label="Model" value={model} onChange={setModel} options={[{ value: "", label: "All models" }, ...(models.data ?? []).map((name) => ({ value: name, label: name }))]} />
        <FilterSelect
          label="Status"
          value={status}
          onChange={(value) => setStatus(value as StatusFilter)}
          options={[
            { value: "all", label: "Any status" },
            { value: "success", label: "Success (< 400)" },
            { value: "error", label: "Errors (≥ 400)" },
          ]}
        />
        {props.isAdmin ? (
          <>
            <FilterSelect label="User" value={userId} onChange={setUserId} options={[{ value: "", label: "All users" }, ...(users.data?.items ?? []).map((user) => ({ value: String(user.id), label: user.name }))]} />
            <FilterSelect
              label="Channel"
              value={channelId}
              onChange={setChannelId}
              options={[{ value: "", label: "All channels" }, ...(channels.data ?? []).map((channel) => ({ value: String(channel.id), label: channel.name }))]}
            />
          </>
        ) : null}
      </div>
      <ResourceTable
        source={{ rows: logs.isPending ? undefined : rows, isPending: logs.isPending, error: logs.error }}
        testId="logs-table"
        rowKey={(row) => row.id}
        rowAttributes={(row) => ({ "data-log-model": row.model })}
        actions={(row) => <RowButton onClick={() => setDetail(row)}>Details</RowButton>}
        empty="No requests in this range."
        columns={[
          { header: "Time", className: "whitespace-nowrap", cell: (row) => formatTime(row.createdAt) },
          props.isAdmin && { header: "User", cell: (row) => row.userName ?? (row.userId ? `#${row.userId}` : "—") },
          { header: "Token", cell: (row) => row.tokenName ?? "—" },
          {
            header: "Model",
            className: "font-mono text-xs",
            cell: (row) => (
              <>
                {row.model}
                {row.upstreamModel && row.upstreamModel !== row.model ? <div className="text-slate-400">→ {row.upstreamModel}</div> : null}
              </>
            ),
          },
          props.isAdmin && { header: "Channel", cell: (row) => row.channelName ?? (row.channelId ? `#${row.channelId}` : "—") },
          {
            header: "In",
            numeric: true,
            cell: (row) => (
              <>
                {formatNumber(row.promptTokens)}
                {row.usageEstimated ? <span title="counted locally: the upstream sent no usage">*</span> : null}
              </>
            ),
          },
          { header: "Out", numeric: true, cell: (row) => formatNumber(row.completionTokens) },
          { header: "Cost", numeric: true, cell: (row) => formatUsdExact(row.cost) },
          { header: "Latency", numeric: true, cell: (row) => formatMs(row.latencyMs) },
          { header: "TTFT", numeric: true, cell: (row) => formatMs(row.firstTokenMs) },
          {
            header: "Status",
            cell: (row) => (
              <Badge color={row.status < 400 ? "green" : row.status === 429 ? "amber" : "red"} title={row.errorCode ?? undefined}>
                {row.status}
                {row.errorCode ? ` ${row.errorCode}` : ""}
              </Badge>
            ),
          },
          { header: "Stream", cell: (row) => (row.stream ? "yes" : "no") },
          { header: "Client IP", className: "font-mono text-xs", cell: (row) => row.clientIp ?? "—" },
          { header: "Request", className: "max-w-32 truncate font-mono text-xs text-slate-400", title: (row) => row.requestId, cell: (row) => row.requestId },
        ]}
      />
      {detail ? <LogDetail row={detail} isAdmin={props.isAdmin} channelName={channelName} onClose={() => setDetail(null)} /> : null}
      <LoadOlder pages={logs} />
      {props.isAdmin ? <LogRetentionForm /> : null}
    </div>
  );
}
