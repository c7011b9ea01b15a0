import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useLocation } from "react-router";
import { FormError, TextField } from "../components/form-fields";
import { useAuthForm } from "../lib/use-auth-form";
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
  const location = useLocation();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  // Back to the page that sent the visitor here, if any.
  const from = (location.state as { from?: string } | null)?.from;
  const login = useAuthForm((callbacks) => trpc.auth.login.mutationOptions(callbacks), () => (from && from !== "/login" ? from : "/"));
  const options = useQuery(trpc.auth.signInOptions.queryOptions());
  // A single sign-on that was refused comes back here with the reason (never a token).
  const ssoError = new URLSearchParams(window.location.search).get("sso_error");
  const sso = options.data?.oidc ?? null;
  return (
    <AuthCard title="Sign in" subtitle="Tollgate console">
      {sso ? (
        <div className="mb-4 space-y-3">
          <a className="button-primary block w-full text-center" href={sso.path} data-testid="sso-sign-in">
            Sign in with {sso.name}
          </a>
          <FormError message={ssoError} />
        </div>
      ) : null}
      {options.data && !options.data.password ? null : (
      <form className="space-y-4" onSubmit={login.submit(() => ({ name, password }))}>
        <TextField label="User name" name="name" autoComplete="username" errors={login.errors.fields} value={name} onChange={setName} />
        <TextField label="Password" name="password" type="password" autoComplete="current-password" errors={login.errors.fields} value={password} onChange={setPassword} />
        <FormError message={login.errors.form} />
        <button type="submit" className="button-primary w-full" disabled={login.isPending}>
          {login.isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      )}
    </AuthCard>
  );
}
