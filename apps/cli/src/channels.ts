import { type ChannelView, cliOperator, createChannel, createChannelSchema, deleteChannel, fetchChannelModels, fetchChannelModelsSchema, listChannels, updateChannel } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { integerFromText, listFromText, modelMappingFromText, pairsFromText, parseInput, recordIdFromText } from "./flag-values";
import { formatFields, formatJson, formatList } from "./format-output";
import { listCommand } from "./list-command";
import { parseCommandArguments } from "./parse-arguments";
import { statusCommand, statusOf } from "./status-command";

/** The channel as shown, without the outcome of its last test (the console shows that). */
function channelJson(channel: ChannelView) {
  const { lastTestAt: _at, lastTestLatencyMs: _latency, lastTestError: _error, updatedAt: _updated, createdAt, ...shown } = channel;
  return { ...shown, createdAt: createdAt.toISOString() };
}

function formatMapping(mapping: Record<string, string>): string {
  const pairs = Object.entries(mapping).map(([publicName, upstreamName]) => `${publicName}=${upstreamName}`);
  return formatList(pairs, "-");
}

const channelFlags = {
  type: "--type",
  baseUrl: "--base-url",
  apiKey: "--key",
  modelMapping: "--map",
  groups: "--group",
  apiVersion: "--api-version",
  firstByteTimeoutMs: "--first-byte-timeout-ms",
  idleTimeoutMs: "--idle-timeout-ms",
  responsesApi: "--responses-api",
  structuredOutput: "--structured-output",
  autoCacheBreakpoints: "--auto-cache-breakpoints",
  builtInTools: "--builtin-tool",
  region: "--region",
  project: "--project",
  location: "--location",
};

/** `--responses-api yes|no`. */
function yesNoFromText(text: string | undefined, flag: string): boolean | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === "yes") return true;
  if (text.trim() === "no") return false;
  throw new CommandError(`--${flag} must be "yes" or "no"`);
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
      "responses-api": "string",
      "structured-output": "string",
      "auto-cache-breakpoints": "string",
      "builtin-tool": "string",
      region: "string",
      project: "string",
      location: "string",
      json: "boolean",
    },
  });
  const input = parseInput(
    createChannelSchema,
    {
      name: flags.name,
      type: flags.type,
      baseUrl: flags["base-url"],
      apiKey: flags.key,
      models: listFromText(flags.models, "models"),
      modelMapping: modelMappingFromText(flags.map, "map"),
      groups: listFromText(flags.group, "group"),
      priority: integerFromText(flags.priority),
      weight: integerFromText(flags.weight),
      preset: flags.preset,
      apiVersion: flags["api-version"],
      firstByteTimeoutMs: integerFromText(flags["first-byte-timeout-ms"]),
      idleTimeoutMs: integerFromText(flags["idle-timeout-ms"]),
      responsesApi: yesNoFromText(flags["responses-api"], "responses-api"),
      // Checked by the schema: anything but tool or native is refused with the flag's name.
      structuredOutput: flags["structured-output"] as "tool" | "native" | undefined,
      autoCacheBreakpoints: yesNoFromText(flags["auto-cache-breakpoints"], "auto-cache-breakpoints"),
      // `web_search=0.01[,file_search=0.0025]`: built-in tools clients may use on the channel, with the price
      // of one call in USD (the names and amounts are the schema's to check).
      builtInTools: pairsFromText(flags["builtin-tool"], "builtin-tool", "tool=USD per call (e.g. web_search=0.01)"),
      region: flags.region,
      project: flags.project,
      location: flags.location,
    },
    channelFlags,
  );
  const created = await createChannel(context.db, context.secretBox, cliOperator, input, context.addressPolicy);
  if (flags.json) return formatJson(channelJson(created));
  return formatFields([
    ["created channel", String(created.id)],
    ["name", created.name],
    ["type", created.type],
    ["base url", created.baseUrl],
    ["key", created.keyMasked ?? "(cannot decrypt)"],
    ["models", formatList(created.models, "-")],
    ["mapping", formatMapping(created.modelMapping)],
    ["groups", formatList(created.groups, "-")],
    ["priority", String(created.priority)],
    ["weight", String(created.weight)],
  ]);
}

const listChannelsCommand = listCommand("channel list", {
  load: ({ db, secretBox }) => listChannels(db, secretBox),
  json: channelJson,
  columns: [
    ["ID", (channel) => String(channel.id)],
    ["NAME", (channel) => channel.name],
    ["STATUS", (channel) => channel.status],
    ["PRIORITY", (channel) => String(channel.priority)],
    ["WEIGHT", (channel) => String(channel.weight)],
    ["GROUPS", (channel) => formatList(channel.groups, "-")],
    ["MODELS", (channel) => formatList(channel.models, "-")],
    ["KEY", (channel) => channel.keyMasked ?? "(cannot decrypt)"],
    ["BASE URL", (channel) => channel.baseUrl],
  ],
});

/**
 * `channel models ID`, or `channel models --type T --base-url URL --key KEY [--preset P] [--api-version V]`
 * for a channel not yet added: the models the upstream lists, one per line (or a JSON array).
 */
async function channelModelsCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  // The ID is optional: a first argument that is not a flag.
  const named = argv[0] !== undefined && !argv[0].startsWith("--");
  const { flags } = parseCommandArguments(named ? argv.slice(1) : argv, {
    command: "channel models",
    flags: { type: "string", "base-url": "string", key: "string", preset: "string", "api-version": "string", json: "boolean" },
  });
  const id = named ? recordIdFromText(argv[0] as string, "channel") : undefined;
  const input = parseInput(
    fetchChannelModelsSchema,
    { id, type: flags.type, baseUrl: flags["base-url"], apiKey: flags.key, preset: flags.preset, apiVersion: flags["api-version"] },
    { ...channelFlags, id: "ID", preset: "--preset" },
  );
  const result = await fetchChannelModels(context.db, context.secretBox, input, context.addressPolicy);
  if (!result.ok) throw new CommandError(result.error, { exitCode: 1 });
  if (flags.json) return formatJson(result.models);
  return result.models.join("\n");
}

export const channelCommands: Record<string, CommandHandler> = {
  models: channelModelsCommand,
  add: addChannel,
  list: listChannelsCommand,
  enable: statusCommand("channel enable", async (id, { db, secretBox }) => statusOf(await updateChannel(db, secretBox, cliOperator, { id, status: "enabled" }))),
  disable: statusCommand("channel disable", async (id, { db, secretBox }) => statusOf(await updateChannel(db, secretBox, cliOperator, { id, status: "disabled" }))),
  delete: statusCommand("channel delete", async (id, { db }) => ({ ...(await deleteChannel(db, cliOperator, id)), deleted: true })),
};
