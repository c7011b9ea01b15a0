import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { ConfirmDelete, DeleteButton, NamedRecordTable, RowButton, StatusButton } from "../components/resource-table";
import { PAGE_SIZE, Pager, SearchBox, useSearchableList } from "../components/search-pager";
import { Badge, Modal, PageHeader } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { formatUsd } from "../lib/money";
import type { UserView } from "../lib/router-types";
import { useTRPC } from "../trpc";
import { UserBalanceHistory } from "./user-balance-history";
import { UserBudgetForm } from "./user-budget-form";
import { UserLimitsForm } from "./user-limits-form";
import { CreateUserForm, type UserFieldKind, UserFieldForm } from "./user-forms";
import { BudgetCell } from "../components/budget-fields";

type Dialog = { kind: "create" } | { kind: UserFieldKind | "history" | "budget" | "limits"; user: UserView };

const titles: Record<UserFieldKind, string> = { topUp: "Top up balance", deduct: "Subtract from balance", group: "Set group", password: "Reset password" };

export function UsersPage(props: { currentUserId: number }) {
  const trpc = useTRPC();
  const { paging, list } = useSearchableList((page) => trpc.users.list.queryOptions(page), {
    update: trpc.users.update.mutationOptions(),
    remove: trpc.users.delete.mutationOptions(),
  });
  const [dialog, setDialog] = useState<Dialog | null>(null);
  // No one changes their own role (so the last administrator cannot demote themself); the server refuses it too.
  const changeRole = useMutation(trpc.users.update.mutationOptions({ onSuccess: list.refresh }));
  const close = () => setDialog(null);
  const saved = async () => {
    await list.refresh();
    close();
  };
  return (
    <div>
      <PageHeader
        title="Users"
        description="Who may sign in and own tokens. A user's group chooses the channels their tokens reach."
        actions={
          <button type="button" className="button-primary" onClick={() => setDialog({ kind: "create" })}>
            Add user
          </button>
        }
      />
      <SearchBox label="Search users" placeholder="Search by name or group" value={paging.text} onChange={paging.setText} />
      <NamedRecordTable
        noun="user"
        source={list}
        empty={paging.state.query ? "No user matches the search." : "No users."}
        nameDetails={(user) => (
          <div className="text-xs font-normal text-slate-500" data-testid="user-id">
            id {user.id}
            {user.hasPassword ? null : " · API only (no password)"}
          </div>
        )}
        columns={[
          { header: "Role", cell: (user) => <Badge color={user.role === "admin" ? "indigo" : "slate"}>{user.role}</Badge> },
          { header: "Group", cell: (user) => user.group },
          { header: "Status", cell: (user) => <Badge color={user.status === "enabled" ? "green" : "slate"}>{user.status}</Badge> },
          { header: "Balance", className: "whitespace-nowrap", cell: (user) => (user.balanceUnlimited ? "Unlimited" : formatUsd(user.balance)) },
          { header: "Budget", className: "whitespace-nowrap", cell: (user) => <BudgetCell budget={user.budget} /> },
          { header: "Created", className: "whitespace-nowrap", cell: (user) => formatDateTime(user.createdAt) },
        ]}
        actions={(user) => (
          <>
            <RowButton onClick={() => setDialog({ kind: "topUp", user })}>Top up</RowButton>
            <RowButton onClick={() => setDialog({ kind: "deduct", user })}>Subtract</RowButton>
            <RowButton onClick={() => setDialog({ kind: "budget", user })}>Budget</RowButton>
            <RowButton onClick={() => setDialog({ kind: "limits", user })}>Limits</RowButton>
            <RowButton onClick={() => setDialog({ kind: "group", user })}>Group</RowButton>
            <RowButton onClick={() => setDialog({ kind: "history", user })}>History</RowButton>
            <RowButton onClick={() => setDialog({ kind: "password", user })}>Password</RowButton>
            {user.id === props.currentUserId ? null : (
              <>
                <RowButton disabled={changeRole.isPending} onClick={() => changeRole.mutate({ id: user.id, role: user.role === "admin" ? "user" : "admin" })}>
                  {user.role === "admin" ? "Make user" : "Make admin"}
                </RowButton>
                <StatusButton list={list} row={user} />
                <DeleteButton list={list} row={user} />
              </>
            )}
          </>
        )}
      />
      <Pager offset={paging.state.offset} limit={PAGE_SIZE} total={list.data?.total} onOffset={paging.setOffset} testId="users-pager" />
      {dialog?.kind === "create" ? (
        <Modal title="Add user" onClose={close} wide>
          <CreateUserForm onCancel={close} onSaved={saved} />
        </Modal>
      ) : null}
      {changeRole.error ? <p className="mt-2 text-sm text-red-600">{changeRole.error.message}</p> : null}
      {dialog?.kind === "history" ? (
        <Modal title={`Balance history: ${dialog.user.name}`} onClose={close} wide>
          <UserBalanceHistory userId={dialog.user.id} />
        </Modal>
      ) : null}
      {dialog?.kind === "budget" ? (
        <Modal title={`Budget: ${dialog.user.name}`} onClose={close} wide>
          <UserBudgetForm user={dialog.user} onCancel={close} onSaved={saved} />
        </Modal>
      ) : null}
      {dialog?.kind === "limits" ? (
        <Modal title={`Limits: ${dialog.user.name}`} onClose={close} wide>
          <UserLimitsForm user={dialog.user} onCancel={close} onSaved={saved} />
        </Modal>
      ) : null}
      {dialog && dialog.kind !== "create" && dialog.kind !== "history" && dialog.kind !== "budget" && dialog.kind !== "limits" ? (
        <Modal title={`${titles[dialog.kind]}: ${dialog.user.name}`} onClose={close}>
          <UserFieldForm user={dialog.user} kind={dialog.kind} onCancel={close} onSaved={saved} />
        </Modal>
      ) : null}
      <ConfirmDelete list={list} noun="user" afterName={() => " and all their tokens? Their request logs are kept."} />
    </div>
  );
}
