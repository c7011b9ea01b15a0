import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, FormActions, inputClass, TextField } from "../components/form-fields";
import { formatUsd } from "../lib/money";
import type { UserView } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

/** Add a user; once saved, `onSaved` refreshes the list and closes the form. */
export function CreateUserForm(props: { onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const [values, setValues] = useState({ name: "", password: "", role: "user" as "user" | "admin", group: "default", balance: "", unlimited: true });
  const form = useFormErrors();
  const create = useMutation(trpc.users.create.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
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
      <div className="grid gap-4 sm:grid-cols-2">
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
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="role" className={inputClass(invalid)} value={values.role} onChange={(event) => set("role")(event.target.value)}>
              <option value="user">user</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        <TextField label="Group" name="group" errors={errors} value={values.group} onChange={set("group")} />
      </div>
      <Field label="Balance (USD)" error={errors.balance}>
        {(id, invalid, describedBy) => (
          <div className="flex items-center gap-3">
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" checked={values.unlimited} onChange={(event) => setValues({ ...values, unlimited: event.target.checked })} />
              Unlimited
            </label>
            {values.unlimited ? null : <input id={id} {...describedBy} name="balance" inputMode="decimal" className={inputClass(invalid)} value={values.balance} onChange={(event) => set("balance")(event.target.value)} />}
          </div>
        )}
      </Field>
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Create user" busy={create.isPending} />
    </form>
  );
}

export type UserFieldKind = "topUp" | "deduct" | "group" | "password";

/** The one-field dialogs of a user's row: top up the balance, set the group, reset the password. */
export function UserFieldForm(props: { user: UserView; kind: UserFieldKind; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const [value, setValue] = useState(props.kind === "group" ? props.user.group : "");
  const [reason, setReason] = useState(props.kind === "topUp" ? "top-up" : "");
  const [allowNegative, setAllowNegative] = useState(false);
  const form = useFormErrors();
  const options = { onSuccess: props.onSaved, onError: form.fromError };
  const topUp = useMutation(trpc.users.topUp.mutationOptions(options));
  const deduct = useMutation(trpc.users.deduct.mutationOptions(options));
  const update = useMutation(trpc.users.update.mutationOptions(options));
  const reset = useMutation(trpc.users.resetPassword.mutationOptions(options));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    if (props.kind === "topUp") topUp.mutate({ id: props.user.id, amount: value, reason });
    else if (props.kind === "deduct") deduct.mutate({ id: props.user.id, amount: value, reason, allowNegative });
    else if (props.kind === "group") update.mutate({ id: props.user.id, group: value });
    else reset.mutate({ id: props.user.id, password: value });
  };
  const field = { topUp: "amount", deduct: "amount", group: "group", password: "password" }[props.kind];
  const label = { topUp: "Amount (USD)", deduct: "Amount to subtract (USD)", group: "Group", password: "New password" }[props.kind];
  const money = props.kind === "topUp" || props.kind === "deduct";
  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      {money ? (
        <p className="text-sm text-slate-600">
          Current balance: {formatUsd(props.user.balance)}
          {props.user.balanceUnlimited ? " (not enforced: spending is unlimited)" : ""}
        </p>
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
      {props.kind === "deduct" ? (
        <>
          <TextField label="Note" name="reason" errors={form.errors.fields} hint="Required: why the balance is lowered (kept in its history)." value={reason} onChange={setReason} />
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="allowNegative" checked={allowNegative} onChange={(event) => setAllowNegative(event.target.checked)} />
            Allow the balance to go below zero
          </label>
        </>
      ) : null}
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Save" busy={topUp.isPending || deduct.isPending || update.isPending || reset.isPending} />
    </form>
  );
}
