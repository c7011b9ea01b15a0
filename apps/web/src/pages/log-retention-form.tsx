import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FormActions, NumberField } from "../components/form-fields";
import { useSaveForm } from "../lib/use-save-form";
import { useTRPC } from "../trpc";

/** The request-log retention (administrators): days kept before the gateways' hourly purge, 0 for ever. */
export function LogRetentionForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.logRetention.get.queryOptions());
  const [days, setDays] = useState<string | null>(null);
  const save = useSaveForm(
    (callbacks) => trpc.logRetention.update.mutationOptions(callbacks),
    () => {
      setDays(null);
      return queryClient.invalidateQueries({ queryKey: trpc.logRetention.get.queryKey() });
    },
  );
  const value = days ?? (current.data ? String(current.data.days) : "");
  const submit = save.submit(() => ({ days: value.trim() === "" ? Number.NaN : Number(value) }));
  return (
    <form className="card mt-6 space-y-4 p-4" onSubmit={submit} noValidate data-testid="log-retention">
      <h2 className="text-base font-semibold">Retention</h2>
      <div className="max-w-md">
        <NumberField
          label="Keep request logs for (days)"
          name="days"
          errors={save.errors.fields}
          hint="Older rows are purged hourly, whole months at a time where they can be. 0 keeps every row. The dashboard's rollups are kept."
          value={value}
          onChange={setDays}
        />
      </div>
      {save.saved ? (
        <p className="text-sm text-green-700" role="status">
          Saved.
        </p>
      ) : null}
      <FormActions error={save.errors.form} submitLabel="Save retention" busy={save.isPending} />
    </form>
  );
}
