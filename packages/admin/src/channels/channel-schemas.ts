import { builtInToolFamilies } from "@tollgate/db";
import { DEFAULT_CHANNEL_TYPE, isChannelType, openAICompatiblePresets } from "@tollgate/upstream";
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

const PRESETS = `Must be one of: ${Object.keys(openAICompatiblePresets).join(", ")}`;

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
 * A new channel. `preset` (openai-compatible vendors) fills the base URL when none is given and applies
 * the vendor's quirks; `apiVersion` is azure-openai's; the timeouts override the gateway's defaults;
 * `responsesApi` says whether the upstream serves the Responses API itself (default: per preset or API version).
 */
export const createChannelSchema = channelFields
  .partial({ type: true, baseUrl: true, modelMapping: true, groups: true, priority: true, weight: true, status: true })
  .extend({
    apiKey: apiKeySchema,
    preset: z
      .string({ error: PRESETS })
      .trim()
      .refine((preset) => Object.hasOwn(openAICompatiblePresets, preset), PRESETS)
      .optional(),
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
    builtInTools: builtInToolsSchema.optional(),
    /** Vertex AI: the project (default: the service account's) and the location (default us-central1). */
    project: projectSchema.optional(),
    location: locationSchema.optional(),
  })
  .superRefine((value, context) => {
    checkMapping(value, context);
    const type = value.type ?? DEFAULT_CHANNEL_TYPE;
    const keyProblem = typeof value.apiKey === "string" && value.apiKey !== "" ? channelKeyProblem(type, value.apiKey) : null;
    if (keyProblem !== null) context.addIssue({ code: "custom", path: ["apiKey"], message: keyProblem });
    // Each per-type setting is refused for the types whose descriptor does not take it.
    for (const setting of ["preset", "apiVersion", "responsesApi", "structuredOutput", "builtInTools", "project", "location"] as const) {
      if (value[setting] !== undefined && !settingApplies(type, setting)) {
        context.addIssue({ code: "custom", path: [setting], message: appliesOnlyMessage(setting) });
      }
    }
    if (value.baseUrl === undefined && value.preset === undefined) {
      context.addIssue({ code: "custom", path: ["baseUrl"], message: "Is required" });
    }
  })
  .transform(({ preset, apiVersion, firstByteTimeoutMs, idleTimeoutMs, responsesApi, structuredOutput, builtInTools, project, location, baseUrl, type, ...fields }) => ({
    ...fields,
    type: type ?? DEFAULT_CHANNEL_TYPE,
    baseUrl: baseUrl ?? openAICompatiblePresets[preset as string]!.baseUrl,
    config: {
      ...(preset === undefined ? {} : { preset }),
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs }),
      ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
      ...(responsesApi === undefined ? {} : { responsesApi }),
      ...(structuredOutput === undefined ? {} : { structuredOutput }),
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
    /** An openai-compatible preset whose quirks apply from now on; null or "" clears it; omitted keeps it. */
    preset: z
      .string({ error: PRESETS })
      .trim()
      .nullable()
      .transform((preset) => preset || null)
      .refine((preset) => preset === null || Object.hasOwn(openAICompatiblePresets, preset), PRESETS)
      .optional(),
    /** Whether the upstream speaks the Responses API; null clears it (the preset's or API version's default); omitted keeps it. */
    responsesApi: z.boolean({ error: 'Must be "yes" or "no"' }).nullable().optional(),
    /** An Anthropic channel's structured-output mode; null clears it (the forced tool); omitted keeps it. */
    structuredOutput: z.enum(["tool", "native"], { error: 'Must be "tool" or "native"' }).nullable().optional(),
    /** The built-in tools allowed and their prices, replacing the stored ones; null or {} allows none; omitted keeps them. */
    builtInTools: builtInToolsSchema.nullable().optional(),
    /** A Vertex AI channel's project or location; null clears it (the default); omitted keeps it. */
    project: projectSchema.nullable().optional(),
    location: locationSchema.nullable().optional(),
  })
  .superRefine(checkMapping);

export type CreateChannelInput = z.output<typeof createChannelSchema>;
export type UpdateChannelInput = Omit<z.output<typeof updateChannelSchema>, "apiKey" | "preset"> & { apiKey?: string; preset?: string | null };
