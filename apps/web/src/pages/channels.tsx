import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDelete, DeleteButton, NamedRecordTable, RowButton, StatusButton } from "../components/resource-table";
import { Badge, Modal, PageHeader } from "../components/ui";
import { formatDateTime, formatMs, formatNumber } from "../lib/format";
import type { ChannelView } from "../lib/router-types";
import { useResourceList } from "../lib/use-resource-list";
import { useTRPC } from "../trpc";
import { ChannelForm } from "./channel-form";

function LastTest(props: { channel: ChannelView }) {
  const { lastTestAt, lastTestError, lastTestLatencyMs } = props.channel;
  if (!lastTestAt) return <span className="text-slate-400">never tested</span>;
  return (
    <div className="space-y-0.5" data-testid="channel-last-test">
      {lastTestError ? (
        <Badge color="red" title={lastTestError}>
          failed
        </Badge>
      ) : (
        <Badge color="green">OK · {formatMs(lastTestLatencyMs)}</Badge>
      )}
      {lastTestError ? <div className="max-w-64 whitespace-normal break-words text-xs text-red-600">{lastTestError}</div> : null}
      <div className="text-xs text-slate-500">{formatDateTime(lastTestAt)}</div>
    </div>
  );
}

/** The channel's public model ids; a mapped one is marked, its upstream name in the tooltip. */
function ChannelModels(props: { channel: ChannelView }) {
  const { models, modelMapping } = props.channel;
  return (
    <div className="flex max-w-64 flex-wrap gap-1">
      {models.map((model) => (
        <span key={model} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs" title={modelMapping[model] ? `→ ${modelMapping[model]}` : undefined}>
          {model}
          {modelMapping[model] ? " ↦" : ""}
        </span>
      ))}
    </div>
  );
}

/** Requests, the error share and the average latency over the last 24 hours, from the rollup. */
function RecentTraffic(props: { health: { requests: number; errors: number; averageLatencyMs: number | null } | undefined }) {
  if (!props.health || props.health.requests === 0) return <span className="text-slate-400">no traffic</span>;
  const { requests, errors, averageLatencyMs } = props.health;
  const rate = (errors / requests) * 100;
  return (
    <div data-testid="channel-traffic" className="whitespace-nowrap">
      <div>{formatNumber(requests)} req</div>
      <div className={`text-xs ${rate >= 10 ? "text-red-600" : "text-slate-500"}`}>{rate < 0.1 && errors > 0 ? "<0.1" : rate.toFixed(rate < 10 && errors > 0 ? 1 : 0)}% errors</div>
      <div className="text-xs text-slate-500" data-testid="channel-latency" title="Mean latency over the last 24 hours">
        {averageLatencyMs === null ? "latency n/a" : `avg ${formatMs(averageLatencyMs)}`}
      </div>
    </div>
  );
}

export function ChannelsPage() {
  const trpc = useTRPC();
  const list = useResourceList({
    query: trpc.channels.list.queryOptions(),
    rowsOf: (channels) => channels,
    update: trpc.channels.update.mutationOptions(),
    remove: trpc.channels.delete.mutationOptions(),
    alsoRefreshes: [trpc.models.available.queryKey()],
  });
  const [editing, setEditing] = useState<ChannelView | "new" | null>(null);
  const saved = async () => {
    await list.refresh();
    setEditing(null);
  };
  const test = useMutation(trpc.channels.test.mutationOptions({ onSettled: list.refresh }));
  const testing = (channel: ChannelView) => test.isPending && test.variables?.id === channel.id;
  // Fresh on every visit: traffic moves while the page is elsewhere.
  const health = useQuery({ ...trpc.channels.health.queryOptions(), staleTime: 0 });
  const healthOf = (channel: ChannelView) => health.data?.find((row) => row.channelId === channel.id);
  // Test all: one channel after the other (each result lands in its row as it comes), not a burst upstream.
  const [testAll, setTestAll] = useState<{ done: number; total: number } | null>(null);
  const runTestAll = async () => {
    const all = list.rows ?? [];
    setTestAll({ done: 0, total: all.length });
    for (const [index, channel] of all.entries()) {
      await test.mutateAsync({ id: channel.id }).catch(() => undefined);
      setTestAll({ done: index + 1, total: all.length });
    }
    setTestAll(null);
  };

  return (
    <div>
      <PageHeader
        title="Channels"
        description="Upstreams: a base URL and key serving a set of models. Higher priority is tried first; weight shares traffic within a priority."
        actions={
          <>
            <button type="button" className="button" disabled={testAll !== null || !list.rows?.length} onClick={() => void runTestAll()}>
              {testAll ? `Testing ${Math.min(testAll.done + 1, testAll.total)}/${testAll.total}…` : "Test all"}
            </button>
            <button type="button" className="button-primary" onClick={() => setEditing("new")}>
              Add channel
            </button>
          </>
        }
      />
      <NamedRecordTable
        noun="channel"
        source={list}
        empty="No channels yet. Add an upstream to serve models."
        nameDetails={(channel) => (
          <>
            <div className="max-w-56 truncate text-xs font-normal text-slate-500" title={channel.baseUrl}>
              {channel.baseUrl}
            </div>
            {channel.preset ? (
              <div className="text-xs font-normal text-slate-500" data-testid="channel-preset">
                preset {channel.preset}
              </div>
            ) : null}
          </>
        )}
        columns={[
          {
            header: "Status",
            cell: (channel) => (
              <Badge color={channel.status === "enabled" ? "green" : channel.status === "auto_disabled" ? "red" : "slate"} title={channel.statusReason ?? undefined}>
                {channel.status.replace("_", " ")}
              </Badge>
            ),
          },
          { header: "Type", className: "whitespace-nowrap", cell: (channel) => channel.type },
          { header: "Models", cell: (channel) => <ChannelModels channel={channel} /> },
          { header: "Groups", cell: (channel) => channel.groups.join(", ") },
          { header: "Priority", cell: (channel) => channel.priority },
          { header: "Weight", cell: (channel) => channel.weight },
          { header: "Key", className: "whitespace-nowrap font-mono text-xs", cell: (channel) => channel.keyMasked ?? "—" },
          { header: "Last test", cell: (channel) => <LastTest channel={channel} /> },
          { header: "Last 24h", cell: (channel) => <RecentTraffic health={healthOf(channel)} /> },
        ]}
        actions={(channel) => (
          <>
            <RowButton disabled={testing(channel)} onClick={() => test.mutate({ id: channel.id })}>
              {testing(channel) ? "Testing…" : "Test"}
            </RowButton>
            <RowButton onClick={() => setEditing(channel)}>Edit</RowButton>
            <StatusButton list={list} row={channel} />
            <DeleteButton list={list} row={channel} />
          </>
        )}
      />
      {editing ? (
        <Modal title={editing === "new" ? "Add channel" : `Edit channel "${editing.name}"`} onClose={() => setEditing(null)} wide>
          <ChannelForm channel={editing === "new" ? undefined : editing} onCancel={() => setEditing(null)} onSaved={saved} />
        </Modal>
      ) : null}
      <ConfirmDelete list={list} noun="channel" afterName={() => "? Its models stop being served through it at once."} />
    </div>
  );
}
