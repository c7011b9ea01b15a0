import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { FormError, TextField } from "../components/form-fields";
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
        <TextField label="User name" name="name" autoComplete="username" errors={form.errors.fields} value={name} onChange={setName} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" errors={form.errors.fields} value={password} onChange={setPassword} />
        <FormError message={form.errors.form} />
        <button type="submit" className="button-primary w-full" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
