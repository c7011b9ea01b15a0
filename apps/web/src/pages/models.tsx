import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { inputClass } from "../components/form-fields";
import { Badge, EmptyRow, PageHeader, QueryState } from "../components/ui";
import { formatUsd, microsToInput } from "../lib/money";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

type ModelRow = Outputs["models"]["list"][number];

function PriceEditor(props: { row: ModelRow; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [input, setInput] = useState(microsToInput(props.row.price?.inputPrice ?? 0));
  const [output, setOutput] = useState(microsToInput(props.row.price?.outputPrice ?? 0));
  const [cached, setCached] = useState(microsToInput(props.row.price?.cachedInputPrice));
  const form = useFormErrors();
  const save = useMutation(
    trpc.models.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
        props.onDone();
      },
      onError: form.fromError,
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    save.mutate({ model: props.row.model, inputPrice: input, outputPrice: output, cachedInputPrice: cached.trim() === "" ? null : cached });
  };
  const cell = (name: string, label: string, value: string, set: (value: string) => void, placeholder?: string) => {
    const error = form.errors.fields[name];
    return (
      <td>
        <input name={name} aria-label={label} inputMode="decimal" className={`${inputClass(Boolean(error))} w-28`} value={value} placeholder={placeholder} onChange={(event) => set(event.target.value)} />
        {error ? <p className="mt-1 max-w-40 text-xs text-red-600">{error.join(" ")}</p> : null}
      </td>
    );
  };
  return (
    <tr className="bg-indigo-50/40">
      <td className="font-mono text-sm font-medium">{props.row.model}</td>
      {cell("inputPrice", "Input price", input, setInput)}
      {cell("outputPrice", "Output price", output, setOutput)}
      {cell("cachedInputPrice", "Cached input price", cached, setCached, "= input")}
      <td />
      <td>
        <form onSubmit={submit} className="flex justify-end gap-1">
          <button type="submit" className="button-small" disabled={save.isPending}>
            Save
          </button>
          <button type="button" className="button-small" onClick={props.onDone}>
            Cancel
          </button>
        </form>
        {form.errors.form ? <p className="text-xs text-red-600">{form.errors.form}</p> : null}
      </td>
    </tr>
  );
}

export function ModelsPage() {
  const trpc = useTRPC();
  const models = useQuery(trpc.models.list.queryOptions());
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <div>
      <PageHeader title="Models & prices" description="Every model a channel serves. Prices are USD per 1M tokens; a model without a price costs nothing." />
      <QueryState isPending={models.isPending} error={models.error} />
      <div className="card overflow-x-auto">
        <table className="table" data-testid="models-table">
          <thead>
            <tr>
              <th>Model</th>
              <th>Input / 1M</th>
              <th>Output / 1M</th>
              <th>Cached input / 1M</th>
              <th>Served by</th>
              <th />
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {models.data?.length === 0 ? <EmptyRow columns={6}>No models yet: add a channel first.</EmptyRow> : null}
            {models.data?.map((row) =>
              editing === row.model ? (
                <PriceEditor key={row.model} row={row} onDone={() => setEditing(null)} />
              ) : (
                <tr key={row.model} data-model={row.model}>
                  <td className="font-mono text-sm font-medium text-slate-900">{row.model}</td>
                  <td>{row.price ? formatUsd(row.price.inputPrice) : <Badge color="amber">unpriced</Badge>}</td>
                  <td>{row.price ? formatUsd(row.price.outputPrice) : "—"}</td>
                  <td>{row.price ? (row.price.cachedInputPrice === null ? "= input" : formatUsd(row.price.cachedInputPrice)) : "—"}</td>
                  <td>
                    {row.channels.length === 0 ? (
                      <span className="text-slate-400">no channel</span>
                    ) : (
                      row.channels.map((channel) => (
                        <span key={channel.id} className="mr-1">
                          <Badge color={channel.status === "enabled" ? "indigo" : "slate"}>{channel.name}</Badge>
                        </span>
                      ))
                    )}
                  </td>
                  <td className="text-right">
                    <button type="button" className="button-small" onClick={() => setEditing(row.model)}>
                      Edit price
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
