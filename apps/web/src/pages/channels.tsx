import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, ConfirmDialog, EmptyRow, Modal, PageHeader, QueryState } from "../components/ui";
import { formatDateTime, formatMs } from "../lib/format";
import type { ChannelView } from "../lib/router-types";
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

export function ChannelsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const channels = useQuery(trpc.channels.list.queryOptions());
  const [editing, setEditing] = useState<ChannelView | "new" | null>(null);
  const [deleting, setDeleting] = useState<ChannelView | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.channels.list.queryKey() });
  const test = useMutation(trpc.channels.test.mutationOptions({ onSettled: refresh }));
  const update = useMutation(trpc.channels.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.channels.delete.mutationOptions({
      onSuccess: async () => {
        setDeleting(null);
        await refresh();
      },
    }),
  );

  return (
    <div>
      <PageHeader
        title="Channels"
        description="Upstreams: a base URL and key serving a set of models. Higher priority is tried first; weight shares traffic within a priority."
        actions={
          <button type="button" className="button-primary" onClick={() => setEditing("new")}>
            Add channel
          </button>
        }
      />
      <QueryState isPending={channels.isPending} error={channels.error} />
      <div className="card overflow-x-auto">
        <table className="table" data-testid="channels-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Status</th>
              <th>Type</th>
              <th>Models</th>
              <th>Groups</th>
              <th>Priority</th>
              <th>Weight</th>
              <th>Key</th>
              <th>Last test</th>
              <th />
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {channels.data?.length === 0 ? <EmptyRow columns={10}>No channels yet. Add an upstream to serve models.</EmptyRow> : null}
            {channels.data?.map((channel) => (
              <tr key={channel.id} data-channel-name={channel.name}>
                <td className="font-medium text-slate-900">
                  {channel.name}
                  <div className="max-w-56 truncate text-xs font-normal text-slate-500" title={channel.baseUrl}>
                    {channel.baseUrl}
                  </div>
                </td>
                <td>
                  <Badge color={channel.status === "enabled" ? "green" : channel.status === "auto_disabled" ? "red" : "slate"} title={channel.statusReason ?? undefined}>
                    {channel.status.replace("_", " ")}
                  </Badge>
                </td>
                <td className="whitespace-nowrap">{channel.type}</td>
                <td>
                  <div className="flex max-w-64 flex-wrap gap-1">
                    {channel.models.map((model) => (
                      <span key={model} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs" title={channel.modelMapping[model] ? `→ ${channel.modelMapping[model]}` : undefined}>
                        {model}
                        {channel.modelMapping[model] ? " ↦" : ""}
                      </span>
                    ))}
                  </div>
                </td>
                <td>{channel.groups.join(", ")}</td>
                <td>{channel.priority}</td>
                <td>{channel.weight}</td>
                <td className="whitespace-nowrap font-mono text-xs">{channel.keyMasked ?? "—"}</td>
                <td>
                  <LastTest channel={channel} />
                </td>
                <td>
                  <div className="flex justify-end gap-1">
                    <button type="button" className="button-small" disabled={test.isPending && test.variables?.id === channel.id} onClick={() => test.mutate({ id: channel.id })}>
                      {test.isPending && test.variables?.id === channel.id ? "Testing…" : "Test"}
                    </button>
                    <button type="button" className="button-small" onClick={() => setEditing(channel)}>
                      Edit
                    </button>
                    <button type="button" className="button-small" onClick={() => update.mutate({ id: channel.id, status: channel.status === "enabled" ? "disabled" : "enabled" })}>
                      {channel.status === "enabled" ? "Disable" : "Enable"}
                    </button>
                    <button type="button" className="button-small text-red-600" onClick={() => setDeleting(channel)}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editing ? (
        <Modal title={editing === "new" ? "Add channel" : `Edit channel "${editing.name}"`} onClose={() => setEditing(null)} wide>
          <ChannelForm channel={editing === "new" ? undefined : editing} onDone={() => setEditing(null)} />
        </Modal>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete channel"
          message={
            <>
              Delete <strong>{deleting.name}</strong>? Its models stop being served through it at once.
            </>
          }
          confirmLabel="Delete channel"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ id: deleting.id })}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </div>
  );
}
