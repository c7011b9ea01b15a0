import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { inputClass } from "../components/form-fields";
import { ResourceTable, RowButton } from "../components/resource-table";
import { Badge, PageHeader } from "../components/ui";
import { formatUsd, microsToInput } from "../lib/money";
import type { Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useResourceList } from "../lib/use-resource-list";
import { useTRPC } from "../trpc";

type ModelRow = Outputs["models"]["list"][number];

/** A model's row turned into inputs for its three prices; once saved, `onSaved` refreshes the list and closes it. */
function PriceEditor(props: { row: ModelRow; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const [input, setInput] = useState(microsToInput(props.row.price?.inputPrice ?? 0));
  const [output, setOutput] = useState(microsToInput(props.row.price?.outputPrice ?? 0));
  const [cached, setCached] = useState(microsToInput(props.row.price?.cachedInputPrice));
  const form = useFormErrors();
  const save = useMutation(trpc.models.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
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
          <button type="button" className="button-small" onClick={props.onCancel}>
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
  const list = useResourceList({ query: trpc.models.list.queryOptions() });
  const [editing, setEditing] = useState<string | null>(null);
  const saved = async () => {
    await list.refresh();
    setEditing(null);
  };
  return (
    <div>
      <PageHeader title="Models & prices" description="Every model a channel serves. Prices are USD per 1M tokens; a model without a price costs nothing." />
      <ResourceTable
        source={list}
        testId="models-table"
        rowKey={(row) => row.model}
        rowAttributes={(row) => ({ "data-model": row.model })}
        replaceRow={(row) => (editing === row.model ? <PriceEditor row={row} onCancel={() => setEditing(null)} onSaved={saved} /> : null)}
        empty="No models yet: add a channel first."
        columns={[
          { header: "Model", className: "font-mono text-sm font-medium text-slate-900", cell: (row) => row.model },
          { header: "Input / 1M", cell: (row) => (row.price ? formatUsd(row.price.inputPrice) : <Badge color="amber">unpriced</Badge>) },
          { header: "Output / 1M", cell: (row) => (row.price ? formatUsd(row.price.outputPrice) : "—") },
          { header: "Cached input / 1M", cell: (row) => (row.price ? (row.price.cachedInputPrice === null ? "= input" : formatUsd(row.price.cachedInputPrice)) : "—") },
          { header: "Served by", cell: (row) => <ServedBy channels={row.channels} /> },
        ]}
        actions={(row) => <RowButton onClick={() => setEditing(row.model)}>Edit price</RowButton>}
      />
    </div>
  );
}

function ServedBy(props: { channels: ModelRow["channels"] }) {
  if (props.channels.length === 0) return <span className="text-slate-400">no channel</span>;
  return props.channels.map((channel) => (
    <span key={channel.id} className="mr-1">
      <Badge color={channel.status === "enabled" ? "indigo" : "slate"}>{channel.name}</Badge>
    </span>
  ));
}
