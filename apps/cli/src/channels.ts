import { type ChannelConfig, type ChannelType, channels, channelTypes } from "@tollgate/db";
import { openAICompatiblePresets } from "@tollgate/upstream";
import { asc, eq } from "drizzle-orm";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { formatFields, formatJson, formatList, formatTable } from "./format-output";
import { maskKey } from "./mask-key";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import {
  parseHttpBaseUrl,
  parseInteger,
  parseModelMapping,
  parseName,
  parseNameList,
  parseRecordId,
} from "./parse-values";

type ChannelRow = typeof channels.$inferSelect;

const MIN_INT32 = -2_147_483_648;

function parseChannelType(value: string | undefined): ChannelType {
  if (value === undefined) return "openai-compatible";
  const type = channelTypes.find((known) => known === value.trim());
  if (!type) throw new CommandError(`--type must be one of: ${channelTypes.join(", ")}`);
  return type;
}

/** The masked key for display; null when it cannot be decrypted (a different TOLLGATE_SECRET). */
async function maskedKey(context: CommandContext, channel: ChannelRow): Promise<string | null> {
  try {
    return maskKey(await context.secretBox.decrypt(channel.apiKeyEncrypted));
  } catch {
    return null;
  }
}

function channelJson(channel: ChannelRow, keyMasked: string | null) {
  return {
    id: channel.id,
    name: channel.name,
    type: channel.type,
    baseUrl: channel.baseUrl,
    models: channel.models,
    modelMapping: channel.modelMapping,
    groups: channel.groups,
    priority: channel.priority,
    weight: channel.weight,
    status: channel.status,
    statusReason: channel.statusReason,
    keyMasked,
    createdAt: channel.createdAt.toISOString(),
  };
}

function formatMapping(mapping: Record<string, string>): string {
  const pairs = Object.entries(mapping).map(([publicName, upstreamName]) => `${publicName}=${upstreamName}`);
  return formatList(pairs, "-");
}

/** --preset (openai-compatible vendors), --api-version (azure-openai) and per-channel timeouts. */
function parseChannelConfig(
  flags: { preset?: string; "api-version"?: string; "first-byte-timeout-ms"?: string; "idle-timeout-ms"?: string },
  type: ChannelType,
): ChannelConfig {
  const config: ChannelConfig = {};
  if (flags.preset !== undefined) {
    if (type !== "openai-compatible") throw new CommandError("--preset applies to --type openai-compatible only");
    if (!Object.hasOwn(openAICompatiblePresets, flags.preset)) {
      throw new CommandError(`--preset must be one of: ${Object.keys(openAICompatiblePresets).join(", ")}`);
    }
    config.preset = flags.preset;
  }
  if (flags["api-version"] !== undefined) {
    if (type !== "azure-openai") throw new CommandError("--api-version applies to --type azure-openai only");
    if (!/^[\w.-]+$/.test(flags["api-version"])) throw new CommandError("--api-version must look like 2024-10-21");
    config.apiVersion = flags["api-version"];
  }
  if (flags["first-byte-timeout-ms"] !== undefined) {
    config.firstByteTimeoutMs = parseInteger(flags["first-byte-timeout-ms"], "first-byte-timeout-ms", 1);
  }
  if (flags["idle-timeout-ms"] !== undefined) config.idleTimeoutMs = parseInteger(flags["idle-timeout-ms"], "idle-timeout-ms", 1);
  return config;
}

async function addChannel(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "channel add",
    flags: {
      name: "string",
      type: "string",
      "base-url": "string",
      key: "string",
      models: "string",
      map: "string",
      priority: "string",
      weight: "string",
      group: "string",
      preset: "string",
      "api-version": "string",
      "first-byte-timeout-ms": "string",
      "idle-timeout-ms": "string",
      json: "boolean",
    },
  });
  const name = parseName(requireFlag(flags.name, "name"), "name");
  const type = parseChannelType(flags.type);
  const config = parseChannelConfig(flags, type);
  const presetUrl = config.preset ? openAICompatiblePresets[config.preset]?.baseUrl : undefined;
  const baseUrl = parseHttpBaseUrl(flags["base-url"] ?? presetUrl ?? requireFlag(flags["base-url"], "base-url"), "base-url");
  const key = requireFlag(flags.key, "key").trim();
  if (/\s/.test(key)) throw new CommandError("--key must not contain whitespace");
  const models = parseNameList(requireFlag(flags.models, "models"), "models");
  const modelMapping = flags.map === undefined ? {} : parseModelMapping(flags.map, "map", models);
  const priority = flags.priority === undefined ? 0 : parseInteger(flags.priority, "priority", MIN_INT32);
  const weight = flags.weight === undefined ? 1 : parseInteger(flags.weight, "weight", 1);
  const groups = flags.group === undefined ? ["default"] : parseNameList(flags.group, "group");

  const apiKeyEncrypted = await context.secretBox.encrypt(key);
  const [created] = await context.db
    .insert(channels)
    .values({ name, type, baseUrl, apiKeyEncrypted, models, modelMapping, groups, priority, weight, config })
    .returning();
  if (!created) throw new Error("the new channel was not returned");
  if (flags.json) return formatJson(channelJson(created, maskKey(key)));
  return formatFields([
    ["created channel", String(created.id)],
    ["name", created.name],
    ["type", created.type],
    ["base url", created.baseUrl],
    ["key", maskKey(key)],
    ["models", formatList(created.models, "-")],
    ["mapping", formatMapping(created.modelMapping)],
    ["groups", formatList(created.groups, "-")],
    ["priority", String(created.priority)],
    ["weight", String(created.weight)],
  ]);
}

async function listChannels(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "channel list", flags: { json: "boolean" } });
  const rows = await context.db.select().from(channels).orderBy(asc(channels.id));
  const keys = await Promise.all(rows.map((channel) => maskedKey(context, channel)));
  if (flags.json) return formatJson(rows.map((channel, index) => channelJson(channel, keys[index] ?? null)));
  return formatTable(
    ["ID", "NAME", "STATUS", "PRIORITY", "WEIGHT", "GROUPS", "MODELS", "KEY", "BASE URL"],
    rows.map((channel, index) => [
      String(channel.id),
      channel.name,
      channel.status,
      String(channel.priority),
      String(channel.weight),
      formatList(channel.groups, "-"),
      formatList(channel.models, "-"),
      keys[index] ?? "(cannot decrypt)",
      channel.baseUrl,
    ]),
  );
}

function setChannelStatus(status: "enabled" | "disabled"): CommandHandler {
  const command = status === "enabled" ? "channel enable" : "channel disable";
  return async (argv, { db }) => {
    const { flags, positionals } = parseCommandArguments(argv, {
      command,
      flags: { json: "boolean" },
      positionals: ["ID"],
    });
    const id = parseRecordId(positionals[0] as string, "channel");
    const [updated] = await db
      .update(channels)
      .set({ status, statusReason: null, updatedAt: new Date() })
      .where(eq(channels.id, id))
      .returning({ id: channels.id, name: channels.name, status: channels.status });
    if (!updated) throw new CommandError(`unknown channel id ${id}`);
    if (flags.json) return formatJson(updated);
    return `channel ${updated.id} (${updated.name}) ${updated.status}\n`;
  };
}

async function deleteChannel(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "channel delete",
    flags: { json: "boolean" },
    positionals: ["ID"],
  });
  const id = parseRecordId(positionals[0] as string, "channel");
  const [deleted] = await db
    .delete(channels)
    .where(eq(channels.id, id))
    .returning({ id: channels.id, name: channels.name });
  if (!deleted) throw new CommandError(`unknown channel id ${id}`);
  if (flags.json) return formatJson({ ...deleted, deleted: true });
  return `channel ${deleted.id} (${deleted.name}) deleted\n`;
}

export const channelCommands: Record<string, CommandHandler> = {
  add: addChannel,
  list: listChannels,
  enable: setChannelStatus("enabled"),
  disable: setChannelStatus("disabled"),
  delete: deleteChannel,
};
