import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { FormActions, NumberField } from "../components/form-fields";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

/** The request-log retention (administrators): days kept before the gateways' hourly purge, 0 for ever. */
export function LogRetentionForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.logRetention.get.queryOptions());
  const [days, setDays] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const form = useFormErrors();
  const update = useMutation(
    trpc.logRetention.update.mutationOptions({
      onSuccess: async () => {
        setDays(null);
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: trpc.logRetention.get.queryKey() });
      },
      onError: form.fromError,
    }),
  );
  const value = days ?? (current.data ? String(current.data.days) : "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    setSaved(false);
    update.mutate({ days: value.trim() === "" ? Number.NaN : Number(value) });
  };
  return (
    <form className="card mt-6 space-y-4 p-4" onSubmit={submit} noValidate data-testid="log-retention">
      <h2 className="text-base font-semibold">Retention</h2>
      <div className="max-w-md">
        <NumberField
          label="Keep request logs for (days)"
          name="days"
          errors={form.errors.fields}
          hint="Older rows are purged hourly, whole months at a time where they can be. 0 keeps every row. The dashboard's rollups are kept."
          value={value}
          onChange={setDays}
        />
      </div>
      {saved ? (
        <p className="text-sm text-green-700" role="status">
          Saved.
        </p>
      ) : null}
      <FormActions error={form.errors.form} submitLabel="Save retention" busy={update.isPending} />
    </form>
  );
}
