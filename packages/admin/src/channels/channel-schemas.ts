import { builtInToolFamilies } from "@tollgate/db";
import { channelPreset, channelPresets, channelTypeDescriptor, DEFAULT_CHANNEL_TYPE, isChannelType } from "@tollgate/upstream";
import { z } from "zod";
import { appliesOnlyMessage, channelKeyProblem, channelTypesMessage, settingApplies } from "./channel-types";
import {
  apiKeySchema,
  baseUrlSchema,
  groupSchema,
  int32Schema,
  modelListSchema,
  nameSchema,
  optionalApiKeySchema,
  positiveIntSchema,
  recordIdSchema,
  requiredOr,
  usdSchema,
} from "../values/value-schemas";

/** The refusal of an unknown preset, listing the registered ones (read at each call: adapters may register later). */
export function presetsMessage(): string {
  return `Must be one of: ${channelPresets()
    .map((preset) => preset.id)
    .join(", ")}`;
}

/** A preset's id, one of the registered adapters' presets. */
export const presetIdSchema = z
  .string({ error: () => presetsMessage() })
  .trim()
  .refine((preset) => channelPreset(preset) !== undefined, { error: () => presetsMessage() });

/** The refusal of a preset given for a channel of another type, or null when it is the type's. */
export function presetTypeRefusal(preset: string, type: string): string | null {
  const presetType = channelPreset(preset)?.type;
  return presetType === undefined || presetType === type ? null : `Is a preset for ${presetType} channels, not ${type}`;
}

const channelFields = z.object({
  name: nameSchema,
  /** A registered adapter's type (packages/upstream's registry). */
  type: z
    .string({ error: (issue) => requiredOr(channelTypesMessage())(issue) })
    .trim()
    .refine(isChannelType, { error: () => channelTypesMessage() }),
  baseUrl: baseUrlSchema,
  models: modelListSchema.refine((models) => models.length > 0, "Must list at least one model"),
  /** Public model id -> upstream model id (for azure-openai: the deployment). */
  modelMapping: z.record(
    z.string().trim().min(1, "Must not map an empty model name"),
    z.string({ error: "Must map to a model name" }).trim().min(1, "Must not map to an empty model name"),
    { error: "Must map model names to upstream model names" },
  ),
  /** Groups whose tokens may use the channel. */
  groups: z
    .array(groupSchema, { error: requiredOr("Must be a list of group names") })
    .transform((groups) => [...new Set(groups)])
    .refine((groups) => groups.length > 0, "Must list at least one group"),
  /** Higher tiers are tried first. */
  priority: int32Schema,
  /** Share of traffic within a priority tier. */
  weight: positiveIntSchema,
  status: z.enum(["enabled", "disabled"], { error: 'Must be "enabled" or "disabled"' }),
});

/** An AWS region name (us-east-1, eu-west-3, us-gov-west-1), for the types that take one. */
const regionSchema = z
  .string({ error: "Must be an AWS region like us-east-1" })
  .trim()
  .regex(/^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/, "Must be an AWS region like us-east-1");

/** A new channel's type: as given, else its preset's (an Anthropic-compatible vendor's preset makes an anthropic channel), else the default. */
function typeOf(type: string | undefined, preset: string | undefined): string {
  return type ?? (preset === undefined ? undefined : channelPreset(preset)?.type) ?? DEFAULT_CHANNEL_TYPE;
}

/** The type's default base URL, with its `{region}` filled (Bedrock's regional endpoint); undefined when it has none. */
function defaultBaseUrlFor(type: string, region: string | undefined): string | undefined {
  const template = channelTypeDescriptor(type)?.defaultBaseUrl ?? undefined;
  if (template === undefined || !template.includes("{region}")) return undefined;
  return region === undefined ? undefined : template.replace("{region}", region);
}

const PROJECT = "Must be a Google Cloud project id (e.g. my-project-123)";
const LOCATION = "Must be a Google Cloud location (e.g. us-central1, europe-west4 or global)";

/** A Vertex AI channel's project: its id as the console shows it (lowercase letters, digits, hyphens; an org's domain prefix allowed). */
const projectSchema = z.string({ error: PROJECT }).trim().regex(/^[a-z][-a-z0-9.:]{1,62}$/, PROJECT);
/** A Vertex AI channel's location (region), or "global". */
const locationSchema = z.string({ error: LOCATION }).trim().regex(/^[a-z][-a-z0-9]{1,40}$/, LOCATION);

const TOOLS = `Must name built-in tools among: ${builtInToolFamilies.join(", ")}`;

/**
 * Built-in tools the channel lets clients use (they run on the upstream account), each with its price per
 * call in USD as text: `{ web_search: "0.01" }` -> config.builtInTools `{ web_search: { pricePerCall: 10000 } }`.
 */
const builtInToolsSchema = z
  .partialRecord(z.enum(builtInToolFamilies, { error: TOOLS }), usdSchema, { error: TOOLS })
  .transform((prices) => Object.fromEntries(Object.entries(prices).map(([family, price]) => [family, { pricePerCall: price }])));

/** Mapped names must be among the channel's models. */
function checkMapping(value: { models?: string[]; modelMapping?: Record<string, string> }, context: z.RefinementCtx): void {
  if (!value.modelMapping || !value.models) return;
  for (const publicName of Object.keys(value.modelMapping)) {
    if (!value.models.includes(publicName)) {
      context.addIssue({ code: "custom", path: ["modelMapping"], message: `Maps ${JSON.stringify(publicName)}, which is not one of the channel's models` });
    }
  }
}

/**
 * A new channel. `preset` (a vendor of the OpenAI-compatible or Anthropic-compatible kind) fills the base
 * URL when none is given, and the type when none is given, and applies the vendor's quirks; `apiVersion` is azure-openai's; the timeouts override the gateway's defaults;
 * `responsesApi` says whether the upstream serves the Responses API itself (default: per preset or API version).
 */
export const createChannelSchema = channelFields
  .partial({ type: true, baseUrl: true, modelMapping: true, groups: true, priority: true, weight: true, status: true })
  .extend({
    apiKey: apiKeySchema,
    preset: presetIdSchema.optional(),
    apiVersion: z.string({ error: "Must look like 2024-10-21" }).trim().regex(/^[\w.-]+$/, "Must look like 2024-10-21").optional(),
    /** Time allowed for the upstream's response headers. */
    firstByteTimeoutMs: positiveIntSchema.optional(),
    /** Longest silence allowed inside a stream. */
    idleTimeoutMs: positiveIntSchema.optional(),
    /** The upstream speaks OpenAI's Responses API (/v1/responses is relayed, not translated); unset: the preset's or API version's default. */
    responsesApi: z.boolean({ error: 'Must be "yes" or "no"' }).optional(),
    /**
     * How an Anthropic channel carries response_format / text.format json_schema: "tool" (a forced tool,
     * every Claude model; the default) or "native" (Anthropic's output_config.format, the models that have it).
     */
    structuredOutput: z.enum(["tool", "native"], { error: 'Must be "tool" or "native"' }).optional(),
    /** Prompt-cache breakpoints added on the tools and the system prompt of translated requests (Anthropic). */
    autoCacheBreakpoints: z.boolean({ error: 'Must be "yes" or "no"' }).optional(),
    builtInTools: builtInToolsSchema.optional(),
    /** The cloud region (bedrock; required there): what requests are signed for, and the default endpoint's. */
    region: regionSchema.optional(),
    /** Vertex AI: the project (default: the service account's) and the location (default us-central1). */
    project: projectSchema.optional(),
    location: locationSchema.optional(),
  })
  .superRefine((value, context) => {
    checkMapping(value, context);
    // A preset alone says the type (an Anthropic-compatible vendor's preset makes an anthropic channel).
    const type = typeOf(value.type, value.preset);
    // A preset on a type that takes none is refused once, below, as any setting the type does not take.
    const presetRefusal = value.preset === undefined || !settingApplies(type, "preset") ? null : presetTypeRefusal(value.preset, type);
    if (presetRefusal !== null) context.addIssue({ code: "custom", path: ["preset"], message: presetRefusal });
    // Each per-type setting is refused for the types whose descriptor does not take it.
    for (const setting of ["preset", "apiVersion", "responsesApi", "structuredOutput", "autoCacheBreakpoints", "builtInTools", "region", "project", "location"] as const) {
      if (value[setting] !== undefined && !settingApplies(type, setting)) {
        context.addIssue({ code: "custom", path: [setting], message: appliesOnlyMessage(setting) });
      }
    }
    if (settingApplies(type, "region") && value.region === undefined) context.addIssue({ code: "custom", path: ["region"], message: "Is required" });
    const keyProblem = typeof value.apiKey === "string" && value.apiKey !== "" ? channelKeyProblem(type, value.apiKey) : null;
    if (keyProblem !== null) context.addIssue({ code: "custom", path: ["apiKey"], message: keyProblem });
    if (value.baseUrl === undefined && value.preset === undefined && defaultBaseUrlFor(type, value.region) === undefined) {
      context.addIssue({ code: "custom", path: ["baseUrl"], message: "Is required" });
    }
  })
  .transform(({ preset, apiVersion, firstByteTimeoutMs, idleTimeoutMs, responsesApi, structuredOutput, autoCacheBreakpoints, builtInTools, region, project, location, baseUrl, type, ...fields }) => ({
    ...fields,
    type: typeOf(type, preset),
    baseUrl: baseUrl ?? defaultBaseUrlFor(typeOf(type, preset), region) ?? channelPreset(preset as string)!.baseUrl,
    config: {
      ...(region === undefined ? {} : { region }),
      ...(preset === undefined ? {} : { preset }),
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs }),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
      ...(responsesApi === undefined ? {} : { responsesApi }),
      ...(structuredOutput === undefined ? {} : { structuredOutput }),
      ...(autoCacheBreakpoints === undefined ? {} : { autoCacheBreakpoints }),
      ...(builtInTools === undefined || Object.keys(builtInTools).length === 0 ? {} : { builtInTools }),
      ...(project === undefined ? {} : { project }),
      ...(location === undefined ? {} : { location }),
    },
  }));

export const updateChannelSchema = channelFields
  .partial()
  .extend({
    id: recordIdSchema,
    /** Omitted or empty: keep the stored key. */
    apiKey: optionalApiKeySchema,
    /** A preset of the channel's type whose quirks apply from now on; null or "" clears it; omitted keeps it. */
    preset: z
      .string({ error: () => presetsMessage() })
      .trim()
      .nullable()
      .transform((preset) => preset || null)
      .refine((preset) => preset === null || channelPreset(preset) !== undefined, { error: () => presetsMessage() })
      .optional(),
    /** Whether the upstream speaks the Responses API; null clears it (the preset's or API version's default); omitted keeps it. */
    responsesApi: z.boolean({ error: 'Must be "yes" or "no"' }).nullable().optional(),
    /** An Anthropic channel's structured-output mode; null clears it (the forced tool); omitted keeps it. */
    structuredOutput: z.enum(["tool", "native"], { error: 'Must be "tool" or "native"' }).nullable().optional(),
    /** Whether an Anthropic channel adds prompt-cache breakpoints itself; null clears it (no); omitted keeps it. */
    autoCacheBreakpoints: z.boolean({ error: 'Must be "yes" or "no"' }).nullable().optional(),
    /** The built-in tools allowed and their prices, replacing the stored ones; null or {} allows none; omitted keeps them. */
    builtInTools: builtInToolsSchema.nullable().optional(),
    /** The cloud region of a type that takes one (bedrock); omitted keeps it. */
    region: regionSchema.optional(),
    /** A Vertex AI channel's project or location; null clears it (the default); omitted keeps it. */
    project: projectSchema.nullable().optional(),
    location: locationSchema.nullable().optional(),
  })
  .superRefine(checkMapping);

export type CreateChannelInput = z.output<typeof createChannelSchema>;
export type UpdateChannelInput = Omit<z.output<typeof updateChannelSchema>, "apiKey" | "preset"> & { apiKey?: string; preset?: string | null };
