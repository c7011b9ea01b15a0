import { channels, type Database } from "@tollgate/db";
import { channelKeyBinding, checkResolvedAddress, DEFAULT_UPSTREAM_ADDRESS_POLICY, type SecretBox, type UpstreamAddressPolicy, upstreamAddressRefusal } from "@tollgate/shared";
import { channelPreset, DEFAULT_CHANNEL_TYPE, isChannelType, listUpstreamModels, type ModelListResult } from "@tollgate/upstream";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { AdminError } from "../admin-error";
import { KEY_REQUIRED_MESSAGE } from "./channel-operations";
import { presetsMessage } from "./channel-schemas";
import { channelKeyProblem, channelTypesMessage, settingApplies } from "./channel-types";
import { baseUrlSchema, optionalApiKeySchema, recordIdSchema } from "../values/value-schemas";


/**
 * What to list the models of: a saved channel (`id` alone), or a channel form's values before they are saved
 * (`type`, `baseUrl` or `preset`, `apiKey`). Both together: the form's values, with the saved key when the
 * form left the key empty (editing a channel without retyping its key) only while the form keeps the saved
 * type and base URL origin: the saved key is never sent anywhere else.
 */
export const fetchChannelModelsSchema = z
  .object({
    id: recordIdSchema.optional(),
    type: z
      .string({ error: () => channelTypesMessage() })
      .trim()
      .refine(isChannelType, { error: () => channelTypesMessage() })
      .optional(),
    baseUrl: baseUrlSchema.optional(),
    apiKey: optionalApiKeySchema,
    preset: z
      .string({ error: () => presetsMessage() })
      .trim()
      .transform((preset) => preset || undefined)
      .refine((preset) => preset === undefined || channelPreset(preset) !== undefined, { error: () => presetsMessage() })
      .optional(),
    apiVersion: z.string().trim().max(40).optional(),
  })
  .superRefine((value, context) => {
    if (value.id !== undefined) return;
    if (value.baseUrl === undefined && value.preset === undefined) context.addIssue({ code: "custom", path: ["baseUrl"], message: "Is required" });
    if (value.apiKey === undefined) context.addIssue({ code: "custom", path: ["apiKey"], message: "Is required to ask the upstream" });
  });

export type FetchChannelModelsInput = z.output<typeof fetchChannelModelsSchema>;

/**
 * Asks the upstream which models it serves (its own list call, packages/upstream listUpstreamModels). The
 * answer is `{ ok: false, error }` when the upstream refuses or cannot be reached, with the key scrubbed; the
 * key itself never leaves this function. Nothing is saved: the caller offers the list to the admin.
 */
export async function fetchChannelModels(
  db: Database,
  secretBox: SecretBox,
  input: FetchChannelModelsInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<ModelListResult> {
  let saved: { type: string; baseUrl: string; apiKey: string; config: Record<string, unknown> } | null = null;
  if (input.id !== undefined) {
    const [row] = await db
      .select({ type: channels.type, baseUrl: channels.baseUrl, apiKeyEncrypted: channels.apiKeyEncrypted, config: channels.config })
      .from(channels)
      .where(eq(channels.id, input.id))
      .limit(1);
    if (!row) throw new AdminError("not_found", `Unknown channel id ${input.id}`);
    const elsewhere =
      (input.baseUrl !== undefined && new URL(input.baseUrl).origin !== new URL(row.baseUrl).origin) || (input.type !== undefined && input.type !== row.type);
    if (elsewhere && input.apiKey === undefined) throw new AdminError("invalid_input", KEY_REQUIRED_MESSAGE, { field: "apiKey" });
    let apiKey = "";
    if (input.apiKey === undefined) {
      try {
        apiKey = await secretBox.decrypt(row.apiKeyEncrypted, channelKeyBinding(input.id));
      } catch {
        return { ok: false, error: "The stored key cannot be decrypted (was TOLLGATE_SECRET changed?)", status: null, unsupported: false };
      }
    }
    saved = { type: row.type, baseUrl: row.baseUrl, apiKey, config: { ...row.config } };
  }
  const preset = input.preset ?? (typeof saved?.config.preset === "string" ? saved.config.preset : undefined);
  const type = input.type ?? saved?.type ?? (preset ? channelPreset(preset)?.type : undefined) ?? DEFAULT_CHANNEL_TYPE;
  const keyProblem = input.apiKey === undefined ? null : channelKeyProblem(type, input.apiKey);
  if (keyProblem !== null) throw new AdminError("invalid_input", keyProblem, { field: "apiKey" });
  const baseUrl = input.baseUrl ?? saved?.baseUrl ?? (preset ? channelPreset(preset)?.baseUrl : undefined);
  if (baseUrl === undefined) throw new AdminError("invalid_input", "Is required", { field: "baseUrl" });
  const literalRefusal = upstreamAddressRefusal(baseUrl, policy);
  if (literalRefusal !== null) throw new AdminError("invalid_input", literalRefusal, { field: "baseUrl" });
  // The name is resolved here as well, so that one pointing at a metadata address gets no request (and no key).
  const resolvedRefusal = await checkResolvedAddress(baseUrl, policy);
  if (resolvedRefusal !== null) throw new AdminError("invalid_input", resolvedRefusal, { field: "baseUrl" });
  const config: Record<string, unknown> = { ...(saved?.config ?? {}) };
  if (preset !== undefined && settingApplies(type, "preset")) config.preset = preset;
  if (input.apiVersion) config.apiVersion = input.apiVersion;
  return listUpstreamModels({ type, baseUrl, apiKey: input.apiKey ?? saved?.apiKey ?? "", config });
}
