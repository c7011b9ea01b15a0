import { useState } from "react";
import { FormError, TextField } from "../components/form-fields";
import { useAuthForm } from "../lib/use-auth-form";
import { useTRPC } from "../trpc";
import { AuthCard } from "./login";

/**
 * First run: create the administrator (offered only while none exists), with the one-time setup code the
 * server printed in its log and wrote to its data folder, so that no one else reaching the page first can.
 */
export function SetupPage() {
  const trpc = useTRPC();
  const [setupCode, setSetupCode] = useState("");
  const [name, setName] = useState("admin");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const setup = useAuthForm((callbacks) => trpc.auth.setup.mutationOptions(callbacks), () => "/");
  const submit = setup.submit(() => {
    if (password === repeat) return { setupCode, name, password };
    setup.setField("repeat", "The passwords differ");
    return undefined;
  });
  return (
    <AuthCard title="Welcome to Tollgate" subtitle="Create the administrator account">
      <form className="space-y-4" onSubmit={submit}>
        <TextField
          label="Setup code"
          name="setupCode"
          autoComplete="off"
          errors={setup.errors.fields}
          hint="Printed in the server's log at start, and in the file setup-code of its data folder (./data/setup-code)."
          value={setupCode}
          onChange={setSetupCode}
        />
        <TextField label="Administrator name" name="name" autoComplete="username" errors={setup.errors.fields} value={name} onChange={setName} />
        <TextField label="Password" name="password" type="password" autoComplete="new-password" errors={setup.errors.fields} hint="At least 8 characters." value={password} onChange={setPassword} />
        <TextField label="Repeat the password" name="repeat" type="password" autoComplete="new-password" errors={setup.errors.fields} value={repeat} onChange={setRepeat} />
        <FormError message={setup.errors.form} />
        <button type="submit" className="button-primary w-full" disabled={setup.isPending}>
          Create administrator
        </button>
      </form>
    </AuthCard>
  );
}
