import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, EmptyRow, PageHeader, QueryState } from "../components/ui";
import { formatMs, formatNumber, formatTime } from "../lib/format";
import { formatUsd } from "../lib/money";
import { type RangeKey, rangeWindow, ranges } from "../lib/ranges";
import { useTRPC } from "../trpc";

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
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const models = useQuery(trpc.models.available.queryOptions());
  const users = useQuery({ ...trpc.users.list.queryOptions(), enabled: props.isAdmin });
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
  const refresh = () => {
    if (range !== "all") setSpan(rangeWindow(range));
    void logs.refetch();
  };
  const columns = props.isAdmin ? 14 : 12;

  return (
    <div>
      <PageHeader
        title="Logs"
        description="Every call to /v1, newest first."
        actions={
          <button type="button" className="button" onClick={refresh} disabled={logs.isFetching}>
            {logs.isFetching ? "Refreshing…" : "Refresh"}
          </button>
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
        <FilterSelect label="Token" value={tokenId} onChange={setTokenId} options={[{ value: "", label: "All tokens" }, ...(tokens.data ?? []).map((token) => ({ value: String(token.id), label: token.name }))]} />
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
            <FilterSelect label="User" value={userId} onChange={setUserId} options={[{ value: "", label: "All users" }, ...(users.data ?? []).map((user) => ({ value: String(user.id), label: user.name }))]} />
            <FilterSelect
              label="Channel"
              value={channelId}
              onChange={setChannelId}
              options={[{ value: "", label: "All channels" }, ...(channels.data ?? []).map((channel) => ({ value: String(channel.id), label: channel.name }))]}
            />
          </>
        ) : null}
      </div>
      <QueryState isPending={logs.isPending} error={logs.error} />
      <div className="card overflow-x-auto">
        <table className="table" data-testid="logs-table">
          <thead>
            <tr>
              <th>Time</th>
              {props.isAdmin ? <th>User</th> : null}
              <th>Token</th>
              <th>Model</th>
              {props.isAdmin ? <th>Channel</th> : null}
              <th className="text-right">In</th>
              <th className="text-right">Out</th>
              <th className="text-right">Cost</th>
              <th className="text-right">Latency</th>
              <th className="text-right">TTFT</th>
              <th>Status</th>
              <th>Stream</th>
              <th>Client IP</th>
              <th>Request</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {!logs.isPending && rows.length === 0 ? <EmptyRow columns={columns}>No requests in this range.</EmptyRow> : null}
            {rows.map((row) => (
              <tr key={row.id} data-log-model={row.model}>
                <td className="whitespace-nowrap">{formatTime(row.createdAt)}</td>
                {props.isAdmin ? <td>{row.userName ?? (row.userId ? `#${row.userId}` : "—")}</td> : null}
                <td>{row.tokenName ?? "—"}</td>
                <td className="font-mono text-xs">
                  {row.model}
                  {row.upstreamModel && row.upstreamModel !== row.model ? <div className="text-slate-400">→ {row.upstreamModel}</div> : null}
                </td>
                {props.isAdmin ? <td>{row.channelName ?? (row.channelId ? `#${row.channelId}` : "—")}</td> : null}
                <td className="text-right tabular-nums">
                  {formatNumber(row.promptTokens)}
                  {row.usageEstimated ? <span title="counted locally: the upstream sent no usage">*</span> : null}
                </td>
                <td className="text-right tabular-nums">{formatNumber(row.completionTokens)}</td>
                <td className="text-right tabular-nums">{formatUsd(row.cost)}</td>
                <td className="text-right tabular-nums">{formatMs(row.latencyMs)}</td>
                <td className="text-right tabular-nums">{formatMs(row.firstTokenMs)}</td>
                <td>
                  <Badge color={row.status < 400 ? "green" : row.status === 429 ? "amber" : "red"} title={row.errorCode ?? undefined}>
                    {row.status}
                    {row.errorCode ? ` ${row.errorCode}` : ""}
                  </Badge>
                </td>
                <td>{row.stream ? "yes" : "no"}</td>
                <td className="font-mono text-xs">{row.clientIp ?? "—"}</td>
                <td className="max-w-32 truncate font-mono text-xs text-slate-400" title={row.requestId}>
                  {row.requestId}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {logs.hasNextPage ? (
        <div className="mt-3 flex justify-center">
          <button type="button" className="button" onClick={() => logs.fetchNextPage()} disabled={logs.isFetchingNextPage}>
            {logs.isFetchingNextPage ? "Loading…" : "Load older"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
