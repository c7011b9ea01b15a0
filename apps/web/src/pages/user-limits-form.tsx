import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, FormActions, inputClass, NumberField } from "../components/form-fields";
import type { UserView } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";
import { ModelCheckboxes } from "../components/model-checkboxes";

const NOT_A_LIMIT = "Enter a whole number, or leave empty for no limit";

/** A per-minute limit as typed: empty is no limit (null), a whole number is the limit, anything else undefined. */
function limitFrom(text: string): number | null | undefined {
  if (text.trim() === "") return null;
  const limit = Number(text);
  return Number.isInteger(limit) ? limit : undefined;
}

/**
 * The limits on a user that bind every token of theirs, the ones they create later too (the gateway applies
 * them whatever a token says; a token can only narrow them), and whether they may create tokens at all.
 */
export function UserLimitsForm(props: { user: UserView; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const { user } = props;
  const models = useQuery(trpc.models.available.queryOptions());
  const [allowedModels, setAllowedModels] = useState<string[]>(user.allowedModels);
  const [ips, setIps] = useState(user.allowedIps.join("\n"));
  const [rpm, setRpm] = useState(String(user.rpmLimit ?? ""));
  const [tpm, setTpm] = useState(String(user.tpmLimit ?? ""));
  const [mayCreateTokens, setMayCreateTokens] = useState(user.mayCreateTokens);
  const form = useFormErrors();
  const update = useMutation(trpc.users.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    const rpmLimit = limitFrom(rpm);
    if (rpmLimit === undefined) return form.setField("rpmLimit", NOT_A_LIMIT);
    const tpmLimit = limitFrom(tpm);
    if (tpmLimit === undefined) return form.setField("tpmLimit", NOT_A_LIMIT);
    update.mutate({ id: user.id, allowedModels, allowedIps: ips.split("\n"), rpmLimit, tpmLimit, mayCreateTokens });
  };
  const toggleModel = (model: string) =>
    setAllowedModels((current) => (current.includes(model) ? current.filter((item) => item !== model) : [...current, model]));
  const knownModels = [...new Set([...(models.data ?? []), ...allowedModels])].sort();
  const errors = form.errors.fields;
  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      <p className="text-sm text-slate-600">These bind every token of the user, including tokens the user creates later. A token can narrow them, never widen them.</p>
      <Field
        label="Model restriction"
        error={errors.allowedModels}
        hint={allowedModels.length === 0 ? "None selected: no restriction on the account." : `${allowedModels.length} selected: only these, on every token.`}
      >
        {() => <ModelCheckboxes models={knownModels} selected={allowedModels} onToggle={toggleModel} />}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="IP allow-list" error={errors.allowedIps} hint="One IP or CIDR range per line (v4 or v6), for every token. Empty: any address.">
          {(id, invalid, describedBy) => (
            <textarea id={id} {...describedBy} name="allowedIps" rows={3} className={`${inputClass(invalid)} font-mono`} value={ips} placeholder={"203.0.113.7\n10.0.0.0/8"} onChange={(event) => setIps(event.target.value)} />
          )}
        </Field>
        <div className="space-y-4">
          <NumberField label="Requests per minute" name="rpmLimit" errors={errors} hint="All of the user's tokens together. Empty: no limit." value={rpm} onChange={setRpm} />
          <NumberField label="Tokens per minute" name="tpmLimit" errors={errors} hint="All of the user's tokens together. Empty: no limit." value={tpm} onChange={setTpm} />
        </div>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="mayCreateTokens" checked={mayCreateTokens} onChange={(event) => setMayCreateTokens(event.target.checked)} />
        May create tokens (unchecked: only an administrator can make them one)
      </label>
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel="Save" busy={update.isPending} />
    </form>
  );
}
