import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { Field, FormError, inputClass } from "../components/ui";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

export function AuthCard(props: { title: string; subtitle: string; children: React.ReactNode }) {
  return (
    <div className="flex min-h-screen items-center justify-center p-4">
      <div className="card w-full max-w-sm p-6">
        <div className="mb-5 flex items-center gap-2">
          <img src="/favicon.svg" alt="" className="h-8 w-8" />
          <div>
            <h1 className="text-lg font-semibold">{props.title}</h1>
            <p className="text-xs text-slate-500">{props.subtitle}</p>
          </div>
        </div>
        {props.children}
      </div>
    </div>
  );
}

export function LoginPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const location = useLocation();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const form = useFormErrors();
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        const from = (location.state as { from?: string } | null)?.from;
        navigate(from && from !== "/login" ? from : "/", { replace: true });
      },
      onError: form.fromError,
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    login.mutate({ name, password });
  };
  return (
    <AuthCard title="Sign in" subtitle="Tollgate console">
      <form className="space-y-4" onSubmit={submit}>
        <Field label="User name" error={form.errors.fields.name}>
          {(id, invalid) => <input id={id} name="name" autoComplete="username" className={inputClass(invalid)} value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Password" error={form.errors.fields.password}>
          {(id, invalid) => (
            <input id={id} name="password" type="password" autoComplete="current-password" className={inputClass(invalid)} value={password} onChange={(event) => setPassword(event.target.value)} />
          )}
        </Field>
        <FormError message={form.errors.form} />
        <button type="submit" className="button-primary w-full" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
