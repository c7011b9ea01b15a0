import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Field, FormActions, inputClass, NumberField, SelectField, TextField } from "../components/form-fields";
import { splitLines } from "../lib/format";
import type { ChannelView, Outputs } from "../lib/router-types";
import { useFormErrors } from "../lib/use-form-errors";
import { useTRPC } from "../trpc";

/** "public=upstream" lines -> mapping; returns an error message for the first malformed line. */
function parseMapping(text: string): Record<string, string> | string {
  const mapping: Record<string, string> = {};
  for (const line of text.split("\n").map((item) => item.trim()).filter(Boolean)) {
    const separator = line.indexOf("=");
    const publicName = separator === -1 ? "" : line.slice(0, separator).trim();
    const upstreamName = separator === -1 ? "" : line.slice(separator + 1).trim();
    if (!publicName || !upstreamName) return `"${line}" is not public=upstream`;
    mapping[publicName] = upstreamName;
  }
  return mapping;
}

/** A URL's scheme, host and port; the text itself when it is not (yet) a URL. */
function originOf(url: string): string {
  try {
    return new URL(url.trim()).origin;
  } catch {
    return url.trim();
  }
}

/** config.builtInTools as the form shows it: `tool=USD per call`, one per line. */
function toolPricesText(prices: Record<string, number> | undefined): string {
  return Object.entries(prices ?? {})
    .map(([tool, micros]) => `${tool}=${micros / 1_000_000}`)
    .join("\n");
}

type ChannelTypeInfo = Outputs["channels"]["types"][number];

/** A setting a type may take as a choice among fixed options, shown when it takes it; "" is the type's default. */
interface ChoiceSetting {
  name: "responsesApi" | "structuredOutput" | "autoCacheBreakpoints";
  label: string;
  hint: string;
  options: (type: ChannelTypeInfo) => [value: string, label: string][];
}

const CHOICE_SETTINGS: ChoiceSetting[] = [
  {
    name: "responsesApi",
    label: "Responses API",
    hint: "Whether the upstream serves /responses itself (relayed as sent) or only chat completions (/v1/responses is translated).",
    options: (type: ChannelTypeInfo) => [["", `Default (${type.responsesApiDefault})`], ["yes", "Speaks it: relay natively"], ["no", "Chat only: translate"]],
  },
  {
    name: "structuredOutput",
    label: "Structured output",
    hint: "How response_format json_schema reaches Claude: a forced tool works on every model; native output_config needs a model that has structured outputs.",
    options: () => [["", "Default (forced tool)"], ["tool", "Forced tool"], ["native", "Native (output_config.format)"]],
  },
  {
    name: "autoCacheBreakpoints",
    label: "Prompt-cache breakpoints",
    hint: "Marks the tool definitions and the system prompt as cache breakpoints for OpenAI-format clients that send no cache_control (a client's own are kept; at most 4 in all).",
    options: () => [["no", "Only the client's own"], ["yes", "Add them on tools and system prompt"]],
  },
];

/** Add or edit a channel; once saved, `onSaved` refreshes the list (and the models it serves) and closes the form. */
export function ChannelForm(props: { channel?: ChannelView; onCancel: () => void; onSaved: () => Promise<void> }) {
  const trpc = useTRPC();
  const editing = props.channel;
  const [name, setName] = useState(editing?.name ?? "");
  // The types and the settings each takes come from the adapters' descriptors (channels.types), never a list here.
  const types = useQuery({ ...trpc.channels.types.queryOptions(), staleTime: Number.POSITIVE_INFINITY });
  const [chosenType, setType] = useState<string | null>(editing?.type ?? null);
  // A new channel starts on the first type offered (the registry's default) once the types are known.
  const type = chosenType ?? types.data?.[0]?.type ?? "";
  const settings = types.data?.find((item) => item.type === type);
  const [baseUrl, setBaseUrl] = useState(editing?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [models, setModels] = useState((editing?.models ?? []).join("\n"));
  const [mapping, setMapping] = useState(Object.entries(editing?.modelMapping ?? {}).map(([from, to]) => `${from}=${to}`).join("\n"));
  const [groups, setGroups] = useState((editing?.groups ?? ["default"]).join(", "));
  const [priority, setPriority] = useState(String(editing?.priority ?? 0));
  const [weight, setWeight] = useState(String(editing?.weight ?? 1));
  const [preset, setPreset] = useState(editing?.preset ?? "");
  // "" is the default (per preset or API version; the forced tool), sent as null when editing to clear a choice.
  const [choices, setChoices] = useState<Record<ChoiceSetting["name"], string>>({
    responsesApi: editing?.responsesApi === null || editing?.responsesApi === undefined ? "" : editing.responsesApi ? "yes" : "no",
    structuredOutput: editing?.structuredOutput ?? "",
    autoCacheBreakpoints: editing?.autoCacheBreakpoints ? "yes" : "no",
  });
  const [builtInTools, setBuiltInTools] = useState(toolPricesText(editing?.builtInTools));
  const [region, setRegion] = useState(editing?.region ?? "");
  // A cloud channel's project and location (Vertex AI); "" is the default, sent as null when editing to clear it.
  const [project, setProject] = useState(editing?.project ?? "");
  const [location, setLocation] = useState(editing?.location ?? "");
  const presets = useQuery({ ...trpc.channels.presets.queryOptions(), staleTime: Number.POSITIVE_INFINITY });
  const chosenPreset = presets.data?.find((item) => item.id === preset);
  /** A preset fills the base URL (and an empty name); the server also stores the vendor's quirks with it. */
  const choosePreset = (id: string) => {
    setPreset(id);
    const next = presets.data?.find((item) => item.id === id);
    if (!next) return;
    // A preset is for one type (an OpenAI-compatible or an Anthropic-compatible vendor): the channel takes it.
    setType(next.type);
    setBaseUrl(next.baseUrl);
    if (!name.trim()) setName(next.label);
  };
  // The stored key goes only where it was given for: a new origin or type takes the key again (the server refuses otherwise).
  const keyRequired = editing !== undefined && (type !== editing.type || originOf(baseUrl) !== originOf(editing.baseUrl));
  const form = useFormErrors();
  // "Fetch models": the upstream's own list, for the values in the form (the stored key when none is typed).
  const fetchModels = useMutation(trpc.channels.fetchModels.mutationOptions());
  const currentModels = splitLines(models);
  const fetched = fetchModels.data?.ok ? fetchModels.data.models : null;
  const askUpstream = () =>
    fetchModels.mutate({
      ...(editing ? { id: editing.id } : {}),
      type: type || undefined,
      baseUrl: baseUrl.trim() || undefined,
      apiKey: apiKey || undefined,
      ...(settings?.settings.preset && preset ? { preset } : {}),
    });
  const toggleModel = (model: string) =>
    setModels((currentModels.includes(model) ? currentModels.filter((item) => item !== model) : [...currentModels, model]).join("\n"));
  const create = useMutation(trpc.channels.create.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));
  const update = useMutation(trpc.channels.update.mutationOptions({ onSuccess: props.onSaved, onError: form.fromError }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    form.clear();
    const modelMapping = parseMapping(mapping);
    if (typeof modelMapping === "string") return form.setField("modelMapping", modelMapping);
    const toolPrices = parseMapping(builtInTools);
    if (typeof toolPrices === "string") return form.setField("builtInTools", toolPrices.replace("public=upstream", "tool=USD"));
    const numbers = { priority: Number(priority), weight: Number(weight) };
    // Before the types have loaded a new channel names none: the server's default type applies.
    const takes = settings?.settings;
    // A type with a region (Bedrock) may leave the base URL empty: the server fills in the region's endpoint.
    const baseUrlField = baseUrl.trim() || !takes?.region ? { baseUrl } : {};
    const fields = { name, ...(type ? { type } : {}), ...baseUrlField, models: splitLines(models), modelMapping, groups: splitLines(groups), ...numbers };
    const regionField = takes?.region && region.trim() ? { region: region.trim() } : {};
    const responsesChoice = choices.responsesApi === "" ? null : choices.responsesApi === "yes";
    const structuredChoice = choices.structuredOutput === "tool" || choices.structuredOutput === "native" ? choices.structuredOutput : null;
    if (editing) {
      update.mutate({
        id: editing.id,
        ...fields,
        apiKey,
        ...(takes?.preset ? { preset: preset || null } : {}),
        ...(takes?.responsesApi ? { responsesApi: responsesChoice } : {}),
        ...(takes?.structuredOutput ? { structuredOutput: structuredChoice } : {}),
        ...regionField,
        ...(takes?.autoCacheBreakpoints ? { autoCacheBreakpoints: choices.autoCacheBreakpoints === "yes" } : {}),
        ...(takes?.project ? { project: project.trim() || null } : {}),
        ...(takes?.location ? { location: location.trim() || null } : {}),
        builtInTools: toolPrices,
      });
    } else {
      create.mutate({
        ...fields,
        apiKey,
        ...(preset && takes?.preset ? { preset } : {}),
        ...(takes?.responsesApi && responsesChoice !== null ? { responsesApi: responsesChoice } : {}),
        ...(takes?.structuredOutput && structuredChoice ? { structuredOutput: structuredChoice } : {}),
        ...(takes?.autoCacheBreakpoints && choices.autoCacheBreakpoints === "yes" ? { autoCacheBreakpoints: true } : {}),
        ...(takes?.project && project.trim() ? { project: project.trim() } : {}),
        ...(takes?.location && location.trim() ? { location: location.trim() } : {}),
        ...(Object.keys(toolPrices).length > 0 ? { builtInTools: toolPrices } : {}),
        ...regionField,
      });
    }
  };
  const errors = form.errors.fields;

  return (
    <form className="space-y-4" onSubmit={submit} noValidate>
      {editing && !settings?.settings.preset ? null : (
        <Field label="Preset" error={errors.preset} hint={chosenPreset?.notes ?? "A known OpenAI-compatible or Anthropic-compatible vendor fills the type and base URL; or fill the fields yourself."}>
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="preset" className={inputClass(invalid)} value={preset} onChange={(event) => choosePreset(event.target.value)}>
              <option value="">None (custom)</option>
              {(presets.data ?? []).filter((item) => !editing || item.type === type).map((item) => (
                <option key={item.id} value={item.id}>
                  {item.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label="Name" name="name" errors={errors} value={name} onChange={setName} />
        <Field label="Type" error={errors.type}>
          {(id, invalid, describedBy) => (
            <select id={id} {...describedBy} name="type" className={inputClass(invalid)} value={type} onChange={(event) => setType(event.target.value)}>
              {/* The saved type stays selectable while the list loads. */}
              {(types.data ?? [{ type, label: type }]).map((item) => (
                <option key={item.type} value={item.type}>
                  {item.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <TextField
        label="Base URL"
        name="baseUrl"
        errors={errors}
        hint={
          settings && !settings.defaultBaseUrl
            ? "The endpoint of your own resource or server (this type has no public one)."
            : `Including the version${settings?.defaultBaseUrl ? `, e.g. ${settings.defaultBaseUrl}` : ""}`
        }
        value={baseUrl}
        placeholder={settings?.defaultBaseUrl ?? "https://"}
        onChange={setBaseUrl}
      />
      <TextField
        label="API key"
        name="apiKey"
        type="password"
        autoComplete="off"
        errors={errors}
        hint={
          keyRequired
            ? "Required: the base URL's origin or the type changed, so the stored key is not sent there."
            : editing
              ? `Stored key: ${editing.keyMasked ?? "cannot be decrypted"}. Leave empty to keep it.`
              : settings?.settings.region
                ? 'An access key as JSON {"accessKeyId","secretAccessKey","sessionToken"} (session token optional), or a Bedrock API key. Stored encrypted.'
                : settings?.settings.project
                  ? "The service account's JSON key, the whole file pasted; stored encrypted and exchanged for access tokens."
                  : "Stored encrypted; shown masked from now on."
        }
        required={!editing || keyRequired}
        aria-required={!editing || keyRequired}
        value={apiKey}
        placeholder={editing && !keyRequired ? "unchanged" : settings?.settings.project ? '{"type": "service_account", ...}' : "sk-..."}
        onChange={setApiKey}
      />
      <div className="space-y-2" data-testid="fetch-models">
        <div className="flex flex-wrap items-center gap-2">
          {settings && !settings.canListModels ? (
            // The type has no list call a key can make (Azure's deployments): say so instead of asking.
            <p className="text-xs text-slate-500" data-testid="fetch-models-unsupported">
              {settings.cannotListModelsReason}
            </p>
          ) : (
            // aria-disabled, not disabled: a disabled button drops the keyboard focus out of the dialog.
            <button type="button" className="button" onClick={() => fetchModels.isPending || askUpstream()} aria-disabled={fetchModels.isPending}>
              {fetchModels.isPending ? "Asking the upstream…" : "Fetch models from upstream"}
            </button>
          )}
          {fetched ? (
            <>
              <span className="text-xs text-slate-500">{fetched.length} models listed; click one to add or remove it.</span>
              <button type="button" className="button-small" onClick={() => setModels([...new Set([...currentModels, ...fetched])].join("\n"))}>
                Add all
              </button>
            </>
          ) : null}
        </div>
        {fetchModels.data && !fetchModels.data.ok ? (
          <p className="break-words rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-700" role="alert" data-testid="fetch-models-error">
            {fetchModels.data.error}
          </p>
        ) : null}
        {fetchModels.error ? (
          <p className="break-words text-sm text-red-600" role="alert" data-testid="fetch-models-error">
            {Object.values((fetchModels.error.data as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors ?? {}).flat().join(" ") || fetchModels.error.message}
          </p>
        ) : null}
        {fetched && fetched.length > 0 ? (
          <div className="flex max-h-40 flex-wrap gap-1 overflow-y-auto rounded-md border border-slate-200 p-2" data-testid="fetched-models">
            {fetched.map((model) => (
              <button
                key={model}
                type="button"
                aria-pressed={currentModels.includes(model)}
                className={`max-w-full truncate rounded px-1.5 py-0.5 font-mono text-xs ${currentModels.includes(model) ? "bg-indigo-600 text-white" : "bg-slate-100 text-slate-700"}`}
                onClick={() => toggleModel(model)}
              >
                {model}
              </button>
            ))}
          </div>
        ) : null}
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Models" error={errors.models} hint="Public model ids, one per line.">
          {(id, invalid, describedBy) => <textarea id={id} {...describedBy} name="models" rows={4} className={`${inputClass(invalid)} font-mono`} value={models} onChange={(event) => setModels(event.target.value)} />}
        </Field>
        <Field label="Model mapping" error={errors.modelMapping} hint="Optional: public=upstream, one per line.">
          {(id, invalid, describedBy) => (
            <textarea id={id} {...describedBy} name="modelMapping" rows={4} className={`${inputClass(invalid)} font-mono`} value={mapping} placeholder="gpt-4o=gpt-4o-2024-08-06" onChange={(event) => setMapping(event.target.value)} />
          )}
        </Field>
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <TextField label="Groups" name="groups" errors={errors} hint="Comma-separated." value={groups} onChange={setGroups} />
        <NumberField label="Priority" name="priority" errors={errors} hint="Higher is tried first." value={priority} onChange={setPriority} />
        <NumberField label="Weight" name="weight" errors={errors} hint="Share within a priority." value={weight} onChange={setWeight} />
      </div>
      {settings?.settings.project || settings?.settings.location ? (
        <div className="grid gap-4 sm:grid-cols-2">
          {settings.settings.project ? (
            <TextField label="Project" name="project" errors={errors} hint="The Google Cloud project id; empty: the service account's own." value={project} placeholder="my-project-123" onChange={setProject} />
          ) : null}
          {settings.settings.location ? (
            <TextField label="Location" name="location" errors={errors} hint="Where the models run, e.g. us-east5 or global; empty: us-central1." value={location} placeholder="us-central1" onChange={setLocation} />
          ) : null}
        </div>
      ) : null}
      {CHOICE_SETTINGS.filter((choice) => settings?.settings[choice.name]).map((choice) => (
        <SelectField
          key={choice.name}
          label={choice.label}
          name={choice.name}
          errors={errors}
          hint={choice.hint}
          options={choice.options(settings!)}
          value={choices[choice.name]}
          onChange={(value) => setChoices((current) => ({ ...current, [choice.name]: value }))}
        />
      ))}
      {settings?.settings.region ? (
        <TextField
          label="Region"
          name="region"
          errors={errors}
          hint="The AWS region requests are signed for; an empty base URL calls this region's Bedrock Runtime endpoint."
          value={region}
          placeholder="us-east-1"
          onChange={setRegion}
        />
      ) : null}
      <Field
        label="Built-in tools"
        error={errors.builtInTools}
        hint="Tools that run on the upstream account (web_search, web_fetch, file_search, code_interpreter, code_execution, image_generation, mcp), one tool=USD per call a line; any other is refused with 400."
      >
        {(id, invalid, describedBy) => (
          <textarea id={id} {...describedBy} name="builtInTools" rows={2} className={`${inputClass(invalid)} font-mono`} value={builtInTools} placeholder="web_search=0.01" onChange={(event) => setBuiltInTools(event.target.value)} />
        )}
      </Field>
      <FormActions error={form.errors.form} onCancel={props.onCancel} submitLabel={editing ? "Save" : "Add channel"} busy={create.isPending || update.isPending} />
    </form>
  );
}
