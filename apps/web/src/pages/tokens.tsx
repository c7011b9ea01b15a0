import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDelete, DeleteButton, NamedRecordTable, RowButton, StatusButton } from "../components/resource-table";
import { PAGE_SIZE, Pager, SearchBox, useSearchableList } from "../components/search-pager";
import { SecretDialog } from "../components/secret-dialog";
import { Badge, Modal, PageHeader } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { BudgetCell } from "../components/budget-fields";
import { formatUsdExact } from "../lib/money";
import type { TokenView } from "../lib/router-types";
import { useTRPC } from "../trpc";
import { TokenForm } from "./token-form";
import { TokenMcpAccess } from "./token-mcp-access";
import { RollTokenButton, TokenKeys } from "./token-roll-dialog";

function tokenState(token: TokenView): { label: string; color: "green" | "red" | "amber" | "slate" } {
  if (token.status === "disabled") return { label: "disabled", color: "slate" };
  if (token.expiresAt && token.expiresAt.getTime() <= Date.now()) return { label: "expired", color: "red" };
  if (token.quotaLimit !== null && token.budget.spent >= token.quotaLimit) {
    return { label: token.budget.period === "none" ? "quota used up" : "used up this period", color: "amber" };
  }
  return { label: "enabled", color: "green" };
}

function TokenStatus(props: { token: TokenView }) {
  const state = tokenState(props.token);
  return (
    <span data-testid="token-status">
      <Badge color={state.color}>{state.label}</Badge>
    </span>
  );
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

export function TokensPage(props: { isAdmin: boolean }) {
  const trpc = useTRPC();
  const { paging, list } = useSearchableList((page) => trpc.tokens.list.queryOptions(page), {
    update: trpc.tokens.update.mutationOptions(),
    remove: trpc.tokens.delete.mutationOptions(),
  });
  const [editing, setEditing] = useState<TokenView | "new" | null>(null);
  const [created, setCreated] = useState<{ secret: string; name: string } | null>(null);
  // A user an administrator withheld token creation from is told so here, not only when the server refuses.
  const account = useQuery({ ...trpc.tokens.ownerLimits.queryOptions({}), enabled: !props.isAdmin });
  const mayCreate = props.isAdmin || account.data?.mayCreateTokens !== false;
  const saved = async () => {
    await list.refresh();
    setEditing(null);
  };

  return (
    <div>
      <PageHeader
        title="Tokens"
        description="API keys for /v1. Each has its own expiry, quota, model restriction and IP allow-list."
        actions={
          mayCreate ? (
            <button type="button" className="button-primary" onClick={() => setEditing("new")}>
              Add token
            </button>
          ) : (
            <p className="text-sm text-slate-600" data-testid="tokens-withheld">
              An administrator makes your tokens: ask one for a new token.
            </p>
          )
        }
      />
      <SearchBox label="Search tokens" placeholder={props.isAdmin ? "Search by name, key prefix or owner" : "Search by name or key prefix"} value={paging.text} onChange={paging.setText} />
      <NamedRecordTable
        noun="token"
        source={list}
        empty={paging.state.query ? "No token matches the search." : "No tokens yet. Add one to call the API."}
        nameDetails={(token) => (
          <>
            {token.group ? <div className="text-xs text-slate-500">group {token.group}</div> : null}
            {token.rpmLimit ? <div className="text-xs text-slate-500">{token.rpmLimit} req/min</div> : null}
            {token.tpmLimit ? <div className="text-xs text-slate-500">{token.tpmLimit} tokens/min</div> : null}
          </>
        )}
        columns={[
          props.isAdmin && { header: "Owner", cell: (token) => token.userName },
          { header: "Key", className: "whitespace-nowrap font-mono text-xs", cell: (token) => <TokenKeys token={token} /> },
          { header: "Status", cell: (token) => <TokenStatus token={token} /> },
          { header: "Remaining", className: "whitespace-nowrap", cell: (token) => <BudgetCell budget={token.budget} /> },
          { header: "Used", className: "whitespace-nowrap", cell: (token) => formatUsdExact(token.usedQuota) },
          { header: "Expires", className: "whitespace-nowrap", cell: (token) => formatDateTime(token.expiresAt, "Never") },
          { header: "Models", cell: (token) => <List items={token.allowedModels} empty="All" /> },
          { header: "IP allow-list", cell: (token) => <List items={token.allowedIps} empty="Any" /> },
          { header: "Created", className: "whitespace-nowrap", cell: (token) => formatDateTime(token.createdAt) },
        ]}
        actions={(token) => (
          <>
            <RowButton onClick={() => setEditing(token)}>Edit</RowButton>
            <RollTokenButton token={token} onRolled={list.refresh} />
            <StatusButton list={list} row={token} />
            <DeleteButton list={list} row={token} />
          </>
        )}
      />
      <Pager offset={paging.state.offset} limit={PAGE_SIZE} total={list.data?.total} onOffset={paging.setOffset} testId="tokens-pager" />
      {editing ? (
        <Modal title={editing === "new" ? "Add token" : `Edit token "${editing.name}"`} onClose={() => setEditing(null)} wide>
          <TokenForm
            token={editing === "new" ? undefined : editing}
            isAdmin={props.isAdmin}
            onCancel={() => setEditing(null)}
            onSaved={saved}
            onCreated={(secret, name) => setCreated({ secret, name })}
          />
          {props.isAdmin && editing !== "new" ? <TokenMcpAccess tokenId={editing.id} /> : null}
        </Modal>
      ) : null}
      {created ? <SecretDialog {...created} onClose={() => setCreated(null)} /> : null}
      <ConfirmDelete list={list} noun="token" afterName={(token) => ` (${token.keyPrefix})? Clients using it will get 401 from now on. This cannot be undone.`} />
    </div>
  );
}
