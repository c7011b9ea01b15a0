import { channels, type Database, usageHourly } from "@tollgate/db";
import { channelKeyBinding, DEFAULT_UPSTREAM_ADDRESS_POLICY, type SecretBox, type UpstreamAddressPolicy, upstreamAddressRefusal } from "@tollgate/shared";
import { type ChannelPresetEntry, type ChannelProbeResult, type ChannelToProbe, channelPresets } from "@tollgate/upstream";
import { appliesOnlyMessage, channelKeyProblem, settingApplies } from "./channel-types";
import { and, asc, eq, gte, ne, sql } from "drizzle-orm";
import { AdminError } from "../admin-error";
import { insertWithDrawnId } from "../values/insert-with-drawn-id";
import type { Actor } from "../actor";
import { recordAudit } from "../audit/record-audit";
import { maskKey } from "../mask-key";
import { type CreateChannelInput, presetTypeRefusal, type UpdateChannelInput } from "./channel-schemas";

/** Every column but the config; the encrypted key is read only to show it masked. */
const channelColumns = {
  id: channels.id,
  name: channels.name,
  type: channels.type,
  baseUrl: channels.baseUrl,
  apiKeyEncrypted: channels.apiKeyEncrypted,
  models: channels.models,
  modelMapping: channels.modelMapping,
  groups: channels.groups,
  priority: channels.priority,
  weight: channels.weight,
  status: channels.status,
  statusReason: channels.statusReason,
  lastTestAt: channels.lastTestAt,
  lastTestLatencyMs: channels.lastTestLatencyMs,
  lastTestError: channels.lastTestError,
  config: channels.config,
  createdAt: channels.createdAt,
  updatedAt: channels.updatedAt,
};

type ChannelRow = { [K in keyof typeof channelColumns]: (typeof channels.$inferSelect)[K] };

export type ChannelView = Omit<ChannelRow, "apiKeyEncrypted" | "config"> & {
  /** The key's last 4 characters (see maskKey); null when it cannot be decrypted with this TOLLGATE_SECRET. */
  keyMasked: string | null;
  /** The vendor preset the channel was made from (config.preset); the rest of the config is not shown (it may hold headers). */
  preset: string | null;
  /** config.responsesApi: set by an admin, or null for the preset's or API version's default. */
  responsesApi: boolean | null;
  /** config.structuredOutput (anthropic): "native", "tool", or null for the default (the forced tool). */
  structuredOutput: "tool" | "native" | null;
  /** config.autoCacheBreakpoints (anthropic): prompt-cache breakpoints added on tools and the system prompt. */
  autoCacheBreakpoints: boolean;
  /** config.builtInTools: each built-in tool clients may use on this channel, with its price per call in micro-USD. */
  builtInTools: Record<string, number>;
  /** config.region (bedrock): the AWS region requests are signed for; null for the types without one. */
  region: string | null;
  /** config.project and config.location (Vertex AI), or null for the default. */
  project: string | null;
  location: string | null;
};

/**
 * Sends one tiny real request through a stored channel, its key decrypted (packages/upstream's
 * createChannelProber), for the console's Test button; testChannel loads and decrypts the channel.
 */
export type ChannelProber = (channel: ChannelToProbe) => Promise<ChannelProbeResult>;

/** The refusal of an edit that would send the stored key to another host or protocol. */
export const KEY_REQUIRED_MESSAGE = "apiKey is required when the base URL's origin or the type changes";

function unknownChannel(id: number): AdminError {
  return new AdminError("not_found", `Unknown channel id ${id}`);
}

async function toView(secretBox: SecretBox, row: ChannelRow): Promise<ChannelView> {
  const { apiKeyEncrypted, config, ...view } = row;
  const preset = typeof config.preset === "string" ? config.preset : null;
  const responsesApi = typeof config.responsesApi === "boolean" ? config.responsesApi : null;
  const structuredOutput = config.structuredOutput === "tool" || config.structuredOutput === "native" ? config.structuredOutput : null;
  let keyMasked: string | null = null;
  try {
    keyMasked = maskKey(await secretBox.decrypt(apiKeyEncrypted, channelKeyBinding(row.id)));
  } catch {
    // Encrypted with another TOLLGATE_SECRET: the channel is still listed, without its key.
  }
  const builtInTools = Object.fromEntries(Object.entries(config.builtInTools ?? {}).map(([family, tool]) => [family, tool?.pricePerCall ?? 0]));
  const region = typeof config.region === "string" ? config.region : null;
  const project = typeof config.project === "string" ? config.project : null;
  const location = typeof config.location === "string" ? config.location : null;
  return { ...view, keyMasked, preset, responsesApi, structuredOutput, autoCacheBreakpoints: config.autoCacheBreakpoints === true, builtInTools, region, project, location };
}

async function loadChannel(db: Database, id: number): Promise<ChannelRow> {
  const [row] = await db.select(channelColumns).from(channels).where(eq(channels.id, id)).limit(1);
  if (!row) throw unknownChannel(id);
  return row;
}

export async function listChannels(db: Database, secretBox: SecretBox): Promise<ChannelView[]> {
  const rows = await db.select(channelColumns).from(channels).orderBy(asc(channels.id));
  return Promise.all(rows.map((row) => toView(secretBox, row)));
}

export async function getChannel(db: Database, secretBox: SecretBox, id: number): Promise<ChannelView> {
  return toView(secretBox, await loadChannel(db, id));
}

/** Refuses a base URL the operator's address policy rules out (the schema already refused metadata hosts). */
function checkBaseUrlAllowed(baseUrl: string, policy: UpstreamAddressPolicy): void {
  const refusal = upstreamAddressRefusal(baseUrl, policy);
  if (refusal !== null) throw new AdminError("invalid_input", refusal, { field: "baseUrl" });
}

/** Where a key may be sent: a base URL's scheme, host and port. */
function originOf(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/**
 * Stores a channel with its key sealed for the channel's row; the key is never returned, only masked. The id
 * is drawn from the sequence first so that the row is written once, already sealed for itself.
 */
export async function createChannel(
  db: Database,
  secretBox: SecretBox,
  actor: Actor,
  input: CreateChannelInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<ChannelView> {
  const { apiKey, ...fields } = input;
  checkBaseUrlAllowed(fields.baseUrl, policy);
  const id = await insertWithDrawnId(db, "channels", async (transaction, id) => {
    const apiKeyEncrypted = await secretBox.encrypt(apiKey, channelKeyBinding(id));
    const [created] = await transaction.insert(channels).values({ ...fields, id, apiKeyEncrypted }).returning();
    if (!created) throw new Error("the new channel was not returned");
    await recordAudit(transaction, actor, { action: "channel.create", objectType: "channel", objectId: id, before: null, after: created });
  });
  return getChannel(db, secretBox, id);
}

/** Changes the fields the input names; setting the status by hand clears the gateway's reason for an automatic disable. */
export async function updateChannel(
  db: Database,
  secretBox: SecretBox,
  actor: Actor,
  input: UpdateChannelInput,
  policy: UpstreamAddressPolicy = DEFAULT_UPSTREAM_ADDRESS_POLICY,
): Promise<ChannelView> {
  const { id, apiKey, preset, responsesApi, structuredOutput, autoCacheBreakpoints, builtInTools, region, project, location, ...fields } = input;
  const current = await loadChannel(db, id);
  const type = fields.type ?? current.type;
  if (fields.baseUrl !== undefined) checkBaseUrlAllowed(fields.baseUrl, policy);
  // The stored key was given for one host and one protocol: sending it elsewhere takes the admin typing it again.
  const originChanges = fields.baseUrl !== undefined && originOf(fields.baseUrl) !== originOf(current.baseUrl);
  if (apiKey === undefined && (originChanges || type !== current.type)) {
    throw new AdminError("invalid_input", KEY_REQUIRED_MESSAGE, { field: "apiKey" });
  }
  const keyProblem = apiKey === undefined ? null : channelKeyProblem(type, apiKey);
  if (keyProblem !== null) throw new AdminError("invalid_input", keyProblem, { field: "apiKey" });
  // A setting that is set (null clears it, whatever the type) must be one the type's descriptor takes.
  for (const [setting, given] of [
    ["preset", Boolean(preset)],
    ["responsesApi", typeof responsesApi === "boolean"],
    ["structuredOutput", Boolean(structuredOutput)],
    ["autoCacheBreakpoints", autoCacheBreakpoints === true],
    ["builtInTools", Boolean(builtInTools && Object.keys(builtInTools).length > 0)],
    ["region", region !== undefined],
    ["project", Boolean(project)],
    ["location", Boolean(location)],
  ] as const) {
    if (given && !settingApplies(type, setting)) throw new AdminError("invalid_input", appliesOnlyMessage(setting), { field: setting });
  }
  const presetRefusal = preset ? presetTypeRefusal(preset, type) : null;
  if (presetRefusal !== null) throw new AdminError("invalid_input", presetRefusal, { field: "preset" });
  // A preset chosen (or cleared with null) changes config.preset only; the other settings stay.
  let config = current.config;
  if (preset !== undefined) {
    const { preset: _previous, ...rest } = current.config;
    config = preset === null ? rest : { ...rest, preset };
  }
  // The per-channel switches: a value sets it, null clears it (back to the default), undefined keeps it.
  for (const [key, value] of [
    ["responsesApi", responsesApi],
    ["structuredOutput", structuredOutput],
    // "no" is the default: stored as absent.
    ["autoCacheBreakpoints", autoCacheBreakpoints === false ? null : autoCacheBreakpoints],
    ["builtInTools", builtInTools && Object.keys(builtInTools).length === 0 ? null : builtInTools],
    ["region", region],
    ["project", project],
    ["location", location],
  ] as const) {
    if (value === undefined) continue;
    const { [key]: _previous, ...rest } = config;
    config = value === null ? rest : { ...rest, [key]: value };
  }
  if (settingApplies(type, "region") && typeof config.region !== "string") throw new AdminError("invalid_input", "Is required", { field: "region" });
  // A channel moved to a type that takes no preset keeps none: its quirks would not apply.
  if (fields.type !== undefined && !settingApplies(fields.type, "preset") && "preset" in config) {
    const { preset: _dropped, ...rest } = config;
    config = rest;
  }
  // A mapping must stay within the models, whichever of the two changed.
  const models = fields.models ?? current.models;
  const mapping = fields.modelMapping ?? current.modelMapping;
  const modelMapping = Object.fromEntries(Object.entries(mapping).filter(([publicName]) => models.includes(publicName)));
  const apiKeyEncrypted = apiKey === undefined ? undefined : await secretBox.encrypt(apiKey, channelKeyBinding(id));
  await db.transaction(async (transaction) => {
    const [before] = await transaction.select().from(channels).where(eq(channels.id, id)).for("update").limit(1);
    if (!before) throw unknownChannel(id);
    const [after] = await transaction
      .update(channels)
      .set({
        ...fields,
        modelMapping,
        // Written only when it changed, so that a status toggle never rewrites the config it read.
        ...(config === current.config ? {} : { config }),
        ...(apiKeyEncrypted === undefined ? {} : { apiKeyEncrypted }),
        ...(fields.status === undefined ? {} : { statusReason: null }),
        updatedAt: new Date(),
      })
      .where(eq(channels.id, id))
      .returning();
    await recordAudit(transaction, actor, { action: "channel.update", objectType: "channel", objectId: id, before, after });
  });
  return getChannel(db, secretBox, id);
}

export async function deleteChannel(db: Database, actor: Actor, id: number): Promise<{ id: number; name: string }> {
  return db.transaction(async (transaction) => {
    const [deleted] = await transaction.delete(channels).where(eq(channels.id, id)).returning();
    if (!deleted) throw unknownChannel(id);
    await recordAudit(transaction, actor, { action: "channel.delete", objectType: "channel", objectId: id, before: deleted, after: null });
    return { id: deleted.id, name: deleted.name };
  });
}

/**
 * Probes the stored channel (its stored base URL, its key decrypted here) and stores the outcome on it (shown
 * in the channel list until the next test). A key that cannot be decrypted is a failed test, not a request.
 */
export async function testChannel(
  db: Database,
  secretBox: SecretBox,
  actor: Actor,
  id: number,
  probe: ChannelProber,
): Promise<{ ok: boolean; latencyMs: number; error: string | null }> {
  const row = await loadChannel(db, id);
  let apiKey: string | null = null;
  try {
    apiKey = await secretBox.decrypt(row.apiKeyEncrypted, channelKeyBinding(row.id));
  } catch {
    // Reported as the test's outcome below: nothing is sent.
  }
  const result: ChannelProbeResult =
    apiKey === null
      ? { ok: false, latencyMs: 0, error: "the key cannot be decrypted (was TOLLGATE_SECRET changed?)" }
      : await probe({ type: row.type, baseUrl: row.baseUrl, apiKey, config: { ...row.config }, models: row.models, modelMapping: row.modelMapping });
  const error = result.ok ? null : (result.error ?? "failed");
  await db.transaction(async (transaction) => {
    const [after] = await transaction
      .update(channels)
      .set({ lastTestAt: new Date(), lastTestLatencyMs: result.latencyMs, lastTestError: error })
      .where(eq(channels.id, id))
      .returning({ lastTestAt: channels.lastTestAt, lastTestLatencyMs: channels.lastTestLatencyMs, lastTestError: channels.lastTestError });
    const before = { lastTestAt: row.lastTestAt, lastTestLatencyMs: row.lastTestLatencyMs, lastTestError: row.lastTestError };
    await recordAudit(transaction, actor, { action: "channel.test", objectType: "channel", objectId: id, before, after: after ?? null });
  });
  return { ok: result.ok, latencyMs: result.latencyMs, error };
}

/** Every type's presets (the CLI's --preset list), each with the type it is for, for the console's channel form. */
export function listChannelPresets(): ChannelPresetEntry[] {
  return channelPresets();
}

export interface ChannelHealth {
  channelId: number;
  requests: number;
  /** Requests answered with a status of 400 or more. */
  errors: number;
  /** Mean latency in ms over the requests whose latency the rollup holds; null when none does (rows older than migration 0011). */
  averageLatencyMs: number | null;
}

/**
 * Each channel's traffic over the last `hours` hours from the hourly rollup: requests, the share answered
 * with an error (status 400 or more) and the average latency. The rollup keeps sums, so there is an average
 * but no percentile. Channels without traffic are left out.
 */
export async function channelHealth(db: Database, hours = 24): Promise<ChannelHealth[]> {
  const since = new Date(Date.now() - hours * 3_600_000);
  return db
    .select({
      channelId: usageHourly.channelId,
      requests: sql<number>`coalesce(sum(${usageHourly.requests}), 0)::bigint`.mapWith(Number),
      errors: sql<number>`coalesce(sum(${usageHourly.errors}), 0)::bigint`.mapWith(Number),
      averageLatencyMs: sql<number | null>`round(sum(${usageHourly.latencyMsSum})::numeric / nullif(sum(${usageHourly.latencyCount}), 0))::bigint`.mapWith((value) =>
        value === null ? null : Number(value),
      ),
    })
    .from(usageHourly)
    .where(and(gte(usageHourly.hour, since), ne(usageHourly.channelId, 0)))
    .groupBy(usageHourly.channelId);
}
