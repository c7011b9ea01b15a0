import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, FormActions, inputClass, TextField } from "../components/form-fields";
import { Badge, ConfirmDialog, EmptyRow, Modal, PageHeader, QueryState } from "../components/ui";
import { formatDateTime } from "../lib/format";
import { formatUsd } from "../lib/money";
import type { UserView } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

type Dialog = { kind: "create" } | { kind: "topUp" | "group" | "password" | "delete"; user: UserView };

function useRefresh() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
}

function CreateUser(props: { onDone: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  const [values, setValues] = useState({ name: "", password: "", role: "user" as "user" | "admin", group: "default", balance: "", unlimited: true });
  const form = useFormErrors();
  const create = useMutation(trpc.users.create.mutationOptions({ onSuccess: async () => (await refresh(), props.onDone()), onError: form.fromError }));
  const set = (field: keyof typeof values) => (value: string) => setValues({ ...values, [field]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    create.mutate({
      name: values.name,
      password: values.password === "" ? undefined : values.password,
      role: values.role,
      group: values.group,
      balance: values.unlimited ? null : values.balance,
    });
  };
  const errors = form.errors.fields;
  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      <div className="grid grid-cols-2 gap-4">
        <TextField label="Name" name="name" errors={errors} value={values.name} onChange={set("name")} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          errors={errors}
          hint="Empty: API-only account, no console sign-in."
          value={values.password}
          onChange={set("password")}
        />
        <Field label="Role" error={errors.role}>
          {(id, invalid) => (
            <select id={id} name="role" className={inputClass(invalid)} value={values.role} onChange={(event) => set("role")(event.target.value)}>
              <option value="user">user</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        <TextField label="Group" name="group" errors={errors} value={values.group} onChange={set("group")} />
      </div>
      <Field label="Balance (USD)" error={errors.balance}>
        {(id, invalid) => (
          <div className="flex items-center gap-3">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={values.unlimited} onChange={(event) => setValues({ ...values, unlimited: event.target.checked })} />
              Unlimited
            </label>
            {values.unlimited ? null : <input id={id} name="balance" inputMode="decimal" className={inputClass(invalid)} value={values.balance} onChange={(event) => set("balance")(event.target.value)} />}
          </div>
        )}
      </Field>
      <FormActions error={form.errors.form} onCancel={props.onDone} submitLabel="Create user" busy={create.isPending} />
    </form>
  );
}

/** One-field dialogs: top up, set group, reset password. */
function SingleField(props: { user: UserView; kind: "topUp" | "group" | "password"; onDone: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  const [value, setValue] = useState(props.kind === "group" ? props.user.group : "");
  const [reason, setReason] = useState("top-up");
  const form = useFormErrors();
  const options = { onSuccess: async () => (await refresh(), props.onDone()), onError: form.fromError };
  const topUp = useMutation(trpc.users.topUp.mutationOptions(options));
  const update = useMutation(trpc.users.update.mutationOptions(options));
  const reset = useMutation(trpc.users.resetPassword.mutationOptions(options));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    if (props.kind === "topUp") topUp.mutate({ id: props.user.id, amount: value, reason });
    else if (props.kind === "group") update.mutate({ id: props.user.id, group: value });
    else reset.mutate({ id: props.user.id, password: value });
  };
  const field = { topUp: "amount", group: "group", password: "password" }[props.kind];
  const label = { topUp: "Amount (USD)", group: "Group", password: "New password" }[props.kind];
  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      {props.kind === "topUp" ? (
        <p className="text-sm text-slate-600">Current balance: {props.user.balanceUnlimited ? "unlimited (not enforced)" : formatUsd(props.user.balance)}</p>
      ) : null}
      <TextField
        label={label}
        name={field}
        type={props.kind === "password" ? "password" : "text"}
        autoComplete="off"
        errors={form.errors.fields}
        hint={props.kind === "password" ? "The user is signed out everywhere." : undefined}
        value={value}
        onChange={setValue}
      />
      {props.kind === "topUp" ? <TextField label="Reason" name="reason" errors={form.errors.fields} value={reason} onChange={setReason} /> : null}
      <FormActions error={form.errors.form} onCancel={props.onDone} submitLabel="Save" busy={topUp.isPending || update.isPending || reset.isPending} />
    </form>
  );
}

export function UsersPage(props: { currentUserId: number }) {
  const trpc = useTRPC();
  const refresh = useRefresh();
  const users = useQuery(trpc.users.list.queryOptions());
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const update = useMutation(trpc.users.update.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.users.delete.mutationOptions({ onSuccess: async () => (await refresh(), setDialog(null)) }));
  const titles = { topUp: "Top up balance", group: "Set group", password: "Reset password", delete: "Delete user" };
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
      <QueryState isPending={users.isPending} error={users.error} />
      {update.error ? <p className="mb-2 text-sm text-red-600">{update.error.message}</p> : null}
      <div className="card overflow-x-auto">
        <table className="table" data-testid="users-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Role</th>
              <th>Group</th>
              <th>Status</th>
              <th>Balance</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {users.data?.length === 0 ? <EmptyRow columns={7}>No users.</EmptyRow> : null}
            {users.data?.map((user) => (
              <tr key={user.id} data-user-name={user.name}>
                <td className="font-medium text-slate-900">
                  {user.name}
                  {user.hasPassword ? null : <div className="text-xs font-normal text-slate-500">API only (no password)</div>}
                </td>
                <td>
                  <Badge color={user.role === "admin" ? "indigo" : "slate"}>{user.role}</Badge>
                </td>
                <td>{user.group}</td>
                <td>
                  <Badge color={user.status === "enabled" ? "green" : "slate"}>{user.status}</Badge>
                </td>
                <td className="whitespace-nowrap">{user.balanceUnlimited ? "Unlimited" : formatUsd(user.balance)}</td>
                <td className="whitespace-nowrap">{formatDateTime(user.createdAt)}</td>
                <td>
                  <div className="flex justify-end gap-1">
                    <button type="button" className="button-small" onClick={() => setDialog({ kind: "topUp", user })}>
                      Top up
                    </button>
                    <button type="button" className="button-small" onClick={() => setDialog({ kind: "group", user })}>
                      Group
                    </button>
                    <button type="button" className="button-small" onClick={() => setDialog({ kind: "password", user })}>
                      Password
                    </button>
                    {user.id === props.currentUserId ? null : (
                      <>
                        <button type="button" className="button-small" onClick={() => update.mutate({ id: user.id, status: user.status === "enabled" ? "disabled" : "enabled" })}>
                          {user.status === "enabled" ? "Disable" : "Enable"}
                        </button>
                        <button type="button" className="button-small text-red-600" onClick={() => setDialog({ kind: "delete", user })}>
                          Delete
                        </button>
                      </>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {dialog?.kind === "create" ? (
        <Modal title="Add user" onClose={() => setDialog(null)} wide>
          <CreateUser onDone={() => setDialog(null)} />
        </Modal>
      ) : null}
      {dialog && dialog.kind !== "create" && dialog.kind !== "delete" ? (
        <Modal title={`${titles[dialog.kind]}: ${dialog.user.name}`} onClose={() => setDialog(null)}>
          <SingleField user={dialog.user} kind={dialog.kind} onDone={() => setDialog(null)} />
        </Modal>
      ) : null}
      {dialog?.kind === "delete" ? (
        <ConfirmDialog
          title="Delete user"
          message={
            <>
              Delete <strong>{dialog.user.name}</strong> and all their tokens? Their request logs are kept.
            </>
          }
          confirmLabel="Delete user"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ id: dialog.user.id })}
          onCancel={() => setDialog(null)}
        />
      ) : null}
    </div>
  );
}
