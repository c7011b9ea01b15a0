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

const unitLabels: Record<string, string> = {
  token: "per 1M tokens",
  image: "per image",
  audio_second: "per audio second",
  character: "per 1M characters",
  request: "per request",
};

/** `1024x1024=0.04, 1024x1024/hd=0.08` <-> { size[/quality]: USD }; null for an empty text, a string for a malformed one. */
function imagePricesFromText(text: string): Record<string, string> | null | string {
  if (text.trim() === "") return null;
  const table: Record<string, string> = {};
  for (const pair of text.split(",")) {
    const [key, usd, extra] = pair.split("=").map((part) => part.trim());
    if (!key || !usd || extra !== undefined) return "Write SIZE[/QUALITY]=USD pairs separated by commas, e.g. 1024x1024=0.04, 1024x1024/hd=0.08";
    table[key] = usd;
  }
  return table;
}

function imagePricesToText(table: Record<string, number> | null | undefined): string {
  return table ? Object.entries(table).map(([key, micros]) => `${key}=${microsToInput(micros)}`).join(", ") : "";
}

/** What a model costs in a unit other than tokens, in one line (per-size image prices first). */
function describeUnitPrice(price: NonNullable<ModelRow["price"]>): string {
  const sizes = price.imagePrices ? Object.entries(price.imagePrices).map(([key, micros]) => `${key} ${formatUsd(micros)}`) : [];
  const base = price.unitPrice === null ? [] : [`${sizes.length > 0 ? "other " : ""}${formatUsd(price.unitPrice)}`];
  return `${[...sizes, ...base].join(", ")} ${unitLabels[price.unit]}`;
}

/** `model-b, model-c · 128,000 tokens`: what the model falls back to and its context window. */
function describeRouting(price: ModelRow["price"]): string {
  const parts = [price?.fallbackModels?.join(", "), price?.contextWindow == null ? undefined : `${price.contextWindow.toLocaleString("en-US")} tokens`];
  const said = parts.filter((part) => part !== undefined);
  return said.length === 0 ? "—" : said.join(" · ");
}

/** A model's row turned into inputs for its prices and reservation default; once saved, `onSaved` refreshes the list and closes it. */
function PriceEditor(props: { row: ModelRow; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const price = props.row.price;
  const [unit, setUnit] = useState<string>(price?.unit ?? "token");
  const [input, setInput] = useState(microsToInput(price?.inputPrice ?? 0));
  const [output, setOutput] = useState(microsToInput(price?.outputPrice ?? 0));
  const [cached, setCached] = useState(microsToInput(price?.cachedInputPrice));
  const [cacheWrite, setCacheWrite] = useState(microsToInput(price?.cacheWritePrice));
  const [cacheWrite1h, setCacheWrite1h] = useState(microsToInput(price?.cacheWrite1hPrice));
  const [unitPrice, setUnitPrice] = useState(microsToInput(price?.unitPrice));
  const [imagePrices, setImagePrices] = useState(imagePricesToText(price?.imagePrices));
  const [maxTokens, setMaxTokens] = useState(price?.defaultMaxTokens == null ? "" : String(price.defaultMaxTokens));
  const [fallbacks, setFallbacks] = useState((price?.fallbackModels ?? []).join(", "));
  const [contextWindow, setContextWindow] = useState(price?.contextWindow == null ? "" : String(price.contextWindow));
  const form = useFormErrors();
  const save = useMutation(trpc.models.update.mutationOptions({ onError: form.fromError }));
  // The fallbacks and context window are kept with the price: saved once the price is.
  const saveRouting = useMutation(trpc.models.updateRouting.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    const table = imagePricesFromText(imagePrices);
    const tokens = maxTokens.trim() === "" ? null : /^\d+$/.test(maxTokens.trim()) ? Number(maxTokens.trim()) : Number.NaN;
    if (typeof table === "string") {
      setLocalErrors({ imagePrices: [table] });
      return;
    }
    setLocalErrors({});
    const windowTokens = contextWindow.trim() === "" ? null : /^\d+$/.test(contextWindow.trim()) ? Number(contextWindow.trim()) : Number.NaN;
    const routing = {
      model: props.row.model,
      fallbacks: fallbacks.split(",").map((name) => name.trim()).filter((name) => name !== ""),
      contextWindow: windowTokens,
    };
    const onSuccess = () => saveRouting.mutate(routing);
    save.mutate({
      model: props.row.model,
      unit: unit as NonNullable<ModelRow["price"]>["unit"],
      inputPrice: input,
      outputPrice: output,
      cachedInputPrice: cached.trim() === "" ? null : cached,
      cacheWritePrice: cacheWrite.trim() === "" ? null : cacheWrite,
      cacheWrite1hPrice: cacheWrite1h.trim() === "" ? null : cacheWrite1h,
      unitPrice: unitPrice.trim() === "" ? null : unitPrice,
      imagePrices: unit === "image" ? table : null,
      defaultMaxTokens: tokens,
    }, { onSuccess });
  };
  const errorOf = (name: string) => localErrors[name] ?? form.errors.fields[name];
  const field = (name: string, label: string, value: string, set: (value: string) => void, options: { placeholder?: string; width?: string } = {}) => {
    const error = errorOf(name);
    return (
      <>
        <input
          name={name}
          aria-label={label}
          inputMode={name === "imagePrices" ? "text" : "decimal"}
          className={`${inputClass(Boolean(error))} ${options.width ?? "w-28"}`}
          value={value}
          placeholder={options.placeholder}
          onChange={(event) => set(event.target.value)}
        />
        {error ? <p className="mt-1 max-w-60 text-xs text-red-600">{error.join(" ")}</p> : null}
      </>
    );
  };
  const cell = (name: string, label: string, value: string, set: (value: string) => void, placeholder?: string) => <td>{field(name, label, value, set, { placeholder })}</td>;
  return (
    <tr className="bg-indigo-50/40">
      <td className="font-mono text-sm font-medium">{props.row.model}</td>
      {cell("inputPrice", "Input price", input, setInput)}
      {cell("outputPrice", "Output price", output, setOutput)}
      <td className="space-y-1">
        <div>{field("cachedInputPrice", "Cache read price", cached, setCached, { placeholder: "read = input" })}</div>
        <div>{field("cacheWritePrice", "Cache write price (5 minutes)", cacheWrite, setCacheWrite, { placeholder: "write 5m = input" })}</div>
        <div>{field("cacheWrite1hPrice", "Cache write price (1 hour)", cacheWrite1h, setCacheWrite1h, { placeholder: "write 1h = input" })}</div>
      </td>
      <td className="space-y-1">
        <select aria-label="Price unit" className="input w-44" value={unit} onChange={(event) => setUnit(event.target.value)}>
          {Object.entries(unitLabels).map(([value, label]) => (
            <option key={value} value={value}>
              {value === "token" ? "tokens (the prices on the left)" : label}
            </option>
          ))}
        </select>
        {errorOf("unit") ? <p className="text-xs text-red-600">{errorOf("unit")!.join(" ")}</p> : null}
        {unit === "token" ? null : <div>{field("unitPrice", "Unit price", unitPrice, setUnitPrice, { placeholder: unit === "image" ? "other sizes" : "USD" })}</div>}
        {unit === "image" ? <div>{field("imagePrices", "Image prices", imagePrices, setImagePrices, { placeholder: "1024x1024=0.04, 1024x1024/hd=0.08", width: "w-60" })}</div> : null}
      </td>
      {cell("defaultMaxTokens", "Default max tokens", maxTokens, setMaxTokens, "global default")}
      <td className="space-y-1">
        <div>{field("fallbacks", "Fallback models", fallbacks, setFallbacks, { placeholder: "model-b, model-c", width: "w-48" })}</div>
        <div>{field("contextWindow", "Context window", contextWindow, setContextWindow, { placeholder: "context window (tokens)", width: "w-48" })}</div>
      </td>
      <td />
      <td>
        <form onSubmit={submit} className="flex justify-end gap-1">
          <button type="submit" className="button-small" disabled={save.isPending || saveRouting.isPending}>
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
  const list = useResourceList({ query: trpc.models.list.queryOptions(), rowsOf: (models) => models });
  const [editing, setEditing] = useState<string | null>(null);
  const saved = async () => {
    await list.refresh();
    setEditing(null);
  };
  return (
    <div>
      <PageHeader title="Models & prices" description="Every model a channel serves. Prices are USD per 1M tokens, or per image, audio second, 1M characters or request for a model billed by another unit; a model without a price costs nothing. A priced model may name fallback models, tried in order when its channels all fail or a prompt exceeds its context window." />
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
          { header: "Cache read · write 5m · write 1h / 1M", cell: (row) => (row.price ? <CachePrices price={row.price} /> : "—") },
          { header: "Other unit", cell: (row) => (row.price && row.price.unit !== "token" ? describeUnitPrice(row.price) : "—") },
          { header: "Default max tokens", cell: (row) => (row.price?.defaultMaxTokens == null ? "—" : row.price.defaultMaxTokens.toLocaleString("en-US")) },
          { header: "Fallbacks · context window", cell: (row) => describeRouting(row.price) },
          { header: "Served by", cell: (row) => <ServedBy channels={row.channels} /> },
        ]}
        actions={(row) => <RowButton onClick={() => setEditing(row.model)}>Edit price</RowButton>}
      />
    </div>
  );
}

/** The three cache prices, each "= input" when unset. */
function CachePrices(props: { price: NonNullable<ModelRow["price"]> }) {
  const amount = (micros: number | null) => (micros === null ? "= input" : formatUsd(micros));
  return (
    <span className="whitespace-nowrap">
      {amount(props.price.cachedInputPrice)} · {amount(props.price.cacheWritePrice)} · {amount(props.price.cacheWrite1hPrice)}
    </span>
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
