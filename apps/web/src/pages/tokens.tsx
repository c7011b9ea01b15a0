import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge, ConfirmDialog, CopyButton, EmptyRow, Modal, PageHeader, QueryState } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { formatUsd } from "../lib/money";
import type { TokenView } from "../lib/router-types";
import { useTRPC } from "../trpc";
import { TokenForm } from "./token-form";

function tokenState(token: TokenView): { label: string; color: "green" | "red" | "amber" | "slate" } {
  if (token.status === "disabled") return { label: "disabled", color: "slate" };
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return { label: "expired", color: "red" };
  if (token.quotaLimit !== null && token.usedQuota >= token.quotaLimit) return { label: "quota used up", color: "amber" };
  return { label: "enabled", color: "green" };
}

function List(props: { items: string[]; empty: string }) {
  if (props.items.length === 0) return <span className="text-slate-400">{props.empty}</span>;
  return (
    <div className="flex max-w-56 flex-wrap gap-1">
      {props.items.map((item) => (
        <span key={item} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
          {item}
        </span>
      ))}
    </div>
  );
}

/** Shown once after creation: the secret cannot be read again. */
function SecretModal(props: { secret: string; name: string; onClose: () => void }) {
  return (
    <Modal title={`Token "${props.name}" created`} onClose={props.onClose}>
      <div className="space-y-4">
        <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="alert">
          <strong>Copy this key now.</strong> It is shown only this once and cannot be recovered; if it is lost, create a new token and delete this one. Keep it on the
          server side (an environment variable), never in front-end code or a public repository.
        </div>
        <div className="flex items-center gap-2">
          <code className="flex-1 break-all rounded-md bg-slate-900 px-3 py-2 font-mono text-sm text-emerald-300" data-testid="token-secret">
            {props.secret}
          </code>
          <CopyButton text={props.secret} />
        </div>
        <div className="flex justify-end">
          <button type="button" className="button-primary" onClick={props.onClose}>
            I have stored the key
          </button>
        </div>
      </div>
    </Modal>
  );
}

export function TokensPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const [editing, setEditing] = useState<TokenView | "new" | null>(null);
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<TokenView | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  const update = useMutation(trpc.tokens.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.tokens.delete.mutationOptions({
      onSuccess: async () => {
        setDeleting(null);
        await refresh();
      },
    }),
  );
  const columns = props.isAdmin ? 11 : 10;

  return (
    <div>
      <PageHeader
        title="Tokens"
        description="API keys for /v1. Each has its own expiry, quota, model restriction and IP allow-list."
        actions={
          <button type="button" className="button-primary" onClick={() => setEditing("new")}>
            Add token
          </button>
        }
      />
      <QueryState isPending={tokens.isPending} error={tokens.error} />
      {update.error ? <p className="mb-2 text-sm text-red-600">{update.error.message}</p> : null}
      <div className="card overflow-x-auto">
        <table className="table" data-testid="tokens-table">
          <thead>
            <tr>
              <th>Name</th>
              {props.isAdmin ? <th>Owner</th> : null}
              <th>Key</th>
              <th>Status</th>
              <th>Remaining</th>
              <th>Used</th>
              <th>Expires</th>
              <th>Models</th>
              <th>IP allow-list</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {tokens.data?.length === 0 ? <EmptyRow columns={columns}>No tokens yet. Add one to call the API.</EmptyRow> : null}
            {tokens.data?.map((token) => {
              const state = tokenState(token);
              return (
                <tr key={token.id} data-token-name={token.name}>
                  <td className="font-medium text-slate-900">
                    {token.name}
                    {token.group ? <div className="text-xs text-slate-500">group {token.group}</div> : null}
                    {token.rpmLimit ? <div className="text-xs text-slate-500">{token.rpmLimit} req/min</div> : null}
                    {token.tpmLimit ? <div className="text-xs text-slate-500">{token.tpmLimit} tokens/min</div> : null}
                  </td>
                  {props.isAdmin ? <td>{token.userName}</td> : null}
                  <td className="whitespace-nowrap font-mono text-xs">{token.keyPrefix}</td>
                  <td>
                    <span data-testid="token-status">
                      <Badge color={state.color}>{state.label}</Badge>
                    </span>
                  </td>
                  <td className="whitespace-nowrap">{token.quotaLimit === null ? "Unlimited" : formatUsd(Math.max(0, token.quotaLimit - token.usedQuota))}</td>
                  <td className="whitespace-nowrap">{formatUsd(token.usedQuota)}</td>
                  <td className="whitespace-nowrap">{formatDateTime(token.expiresAt, "Never")}</td>
                  <td>
                    <List items={token.allowedModels} empty="All" />
                  </td>
                  <td>
                    <List items={token.allowedIps} empty="Any" />
                  </td>
                  <td className="whitespace-nowrap">{formatDateTime(token.createdAt)}</td>
                  <td>
                    <div className="flex justify-end gap-1">
                      <button type="button" className="button-small" onClick={() => setEditing(token)}>
                        Edit
                      </button>
                      <button
                        type="button"
                        className="button-small"
                        disabled={update.isPending}
                        onClick={() => update.mutate({ id: token.id, status: token.status === "enabled" ? "disabled" : "enabled" })}
                      >
                        {token.status === "enabled" ? "Disable" : "Enable"}
                      </button>
                      <button type="button" className="button-small text-red-600" onClick={() => setDeleting(token)}>
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {editing ? (
        <Modal title={editing === "new" ? "Add token" : `Edit token "${editing.name}"`} onClose={() => setEditing(null)} wide>
          <TokenForm
            token={editing === "new" ? undefined : editing}
            isAdmin={props.isAdmin}
            onDone={() => setEditing(null)}
            onCreated={(secret, name) => {
              setEditing(null);
              setCreated({ secret, name });
            }}
          />
        </Modal>
      ) : null}
      {created ? <SecretModal {...created} onClose={() => setCreated(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete token"
          message={
            <>
              Delete <strong>{deleting.name}</strong> ({deleting.keyPrefix})? Clients using it will get 401 from now on. This cannot be undone.
            </>
          }
          confirmLabel="Delete token"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ id: deleting.id })}
          onCancel={() => setDeleting(null)}
        />
      ) : null}
    </div>
  );
}
