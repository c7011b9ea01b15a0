import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { Field, FormError, inputClass } from "../components/ui";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";
import { AuthCard } from "./login";

/** First run in embedded mode: create the administrator (offered only while none exists). */
export function SetupPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState("admin");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const form = useFormErrors();
  const setup = useMutation(
    trpc.auth.setup.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        navigate("/", { replace: true });
      },
      onError: form.fromError,
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    if (password !== repeat) {
      form.setField("repeat", "The passwords differ");
      return;
    }
    setup.mutate({ name, password });
  };
  return (
    <AuthCard title="Welcome to Tollgate" subtitle="Create the administrator account">
      <form className="space-y-4" onSubmit={submit}>
        <Field label="Administrator name" error={form.errors.fields.name}>
          {(id, invalid) => <input id={id} name="name" autoComplete="username" className={inputClass(invalid)} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Password" error={form.errors.fields.password} hint="At least 8 characters.">
          {(id, invalid) => (
            <input id={id} name="password" type="password" autoComplete="new-password" className={inputClass(invalid)} value={password} onChange={(event) => setPassword(event.target.value)} />
          )}
        </Field>
        <Field label="Repeat the password" error={form.errors.fields.repeat}>
          {(id, invalid) => (
            <input id={id} name="repeat" type="password" autoComplete="new-password" className={inputClass(invalid)} value={repeat} onChange={(event) => setRepeat(event.target.value)} />
          )}
        </Field>
        <FormError message={form.errors.form} />
        <button type="submit" className="button-primary w-full" disabled={setup.isPending}>
          Create administrator
        </button>
      </form>
    </AuthCard>
  );
}
