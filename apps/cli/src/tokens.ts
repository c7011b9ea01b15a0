import {
  cliOperator,
  createToken,
  createTokenSchema,
  deleteToken,
  findTeam,
  findUser,
  getToken,
  listTokens,
  rollToken,
  rollTokenSchema,
  setTokenMcpAccess,
  type TokenView,
  updateToken,
  updateTokenSchema,
} from "@tollgate/admin";
import { budgetFields, budgetFlagLabels, budgetJson, thresholdsFromText } from "./budget-flags";
import { mcpAccessFields, tokenMcpAccessFromFlags } from "./mcp";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { integerFromText, limitOrNone, listFromText, parseInput, recordIdFromText } from "./flag-values";
import { formatDate, formatFields, formatJson, formatList, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import { statusCommand, statusOf } from "./status-command";

const tokenFlags = {
  quotaLimit: "--quota",
  expiresAt: "--expires",
  allowedModels: "--models",
  allowedIps: "--ip",
  rpmLimit: "--rpm",
  tpmLimit: "--tpm",
  responseCacheTtlSeconds: "--cache-ttl",
  responseCacheScope: "--cache-scope",
  ...budgetFlagLabels,
};

/** The flags `token update` takes, which `token create` takes too. */
const updatableFlags = {
  rpm: "string",
  tpm: "string",
  quota: "string",
  period: "string",
  "time-zone": "string",
  "alert-at": "string",
  "cache-ttl": "string",
  "cache-scope": "string",
  json: "boolean",
} as const;

/** --cache-ttl: seconds answers stay in the response cache, or `off` (also `none`) to stop caching the token's calls. */
function cacheTtlFromText(value: string | undefined): number | null | undefined {
  const word = value?.trim().toLowerCase();
  return word === "off" || word === "none" ? null : integerFromText(value);
}

/** What token create and update read alike: the budget's period and alerts, and the response cache. */
function periodAndCacheInput(flags: { period?: string; "time-zone"?: string; "alert-at"?: string; "cache-ttl"?: string; "cache-scope"?: string }) {
  return {
    budgetPeriod: flags.period,
    budgetTimeZone: flags["time-zone"],
    alertThresholds: thresholdsFromText(flags["alert-at"]),
    responseCacheTtlSeconds: cacheTtlFromText(flags["cache-ttl"]),
    // The schema refuses anything but user, token, team or group, in its own words.
    responseCacheScope: flags["cache-scope"] as never,
  };
}

function describeCache(token: TokenView): string {
  return token.responseCacheTtlSeconds === null ? "off (a call may ask with x-tollgate-cache)" : `${token.responseCacheTtlSeconds} s, shared by ${token.responseCacheScope}`;
}

/** What is left of the quota: in the current period when it has one. */
function remainingQuota(token: TokenView): number | null {
  return token.quotaLimit === null ? null : Math.max(0, token.quotaLimit - token.budget.spent);
}

function isExpired(token: TokenView, now: Date): boolean {
  return token.expiresAt !== null && token.expiresAt.getTime() <= now.getTime();
}

function tokenJson(token: TokenView, now: Date) {
  return {
    id: token.id,
    name: token.name,
    userId: token.userId,
    teamId: token.teamId,
    userName: token.userName,
    prefix: token.keyPrefix,
    status: token.status,
    expired: isExpired(token, now),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    quotaLimit: usdForJson(token.quotaLimit),
    quotaUsed: usdForJson(token.usedQuota),
    quotaRemaining: usdForJson(remainingQuota(token)),
    budget: budgetJson(token.budget, token.alertThresholds),
    models: token.allowedModels,
    ips: token.allowedIps,
    group: token.group,
    rpm: token.rpmLimit,
    tpm: token.tpmLimit,
    cacheTtlSeconds: token.responseCacheTtlSeconds,
    cacheScope: token.responseCacheScope,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    rolledAt: token.rolledAt?.toISOString() ?? null,
    previousPrefix: token.previousKeyPrefix,
    previousKeyExpiresAt: token.previousKeyExpiresAt?.toISOString() ?? null,
    previousKeyLastUsedAt: token.previousKeyLastUsedAt?.toISOString() ?? null,
    createdAt: token.createdAt.toISOString(),
  };
}

function displayStatus(token: TokenView, now: Date): string {
  const notes: string[] = [];
  if (isExpired(token, now)) notes.push("expired");
  if (token.quotaLimit !== null && token.budget.spent >= token.quotaLimit) notes.push(token.budget.period === "none" ? "quota used up" : "quota used up this period");
  return notes.length === 0 ? token.status : `${token.status} (${notes.join(", ")})`;
}

function tokenFields(token: TokenView, now: Date): [string, string][] {
  return [
    ["id", String(token.id)],
    ["name", token.name],
    ["user", `${token.userName} (id ${token.userId})`],
    ["prefix", token.keyPrefix],
    ["status", displayStatus(token, now)],
    ["quota limit", formatUsd(token.quotaLimit)],
    ["quota used", formatUsd(token.usedQuota)],
    ["quota remaining", formatUsd(remainingQuota(token))],
    ...budgetFields(token.budget, token.alertThresholds),
    ["expires", formatDate(token.expiresAt, "never")],
    ["models", formatList(token.allowedModels, "all models of the group")],
    ["ips", formatList(token.allowedIps, "any")],
    ["group", token.group ?? `owner's group`],
    ["rpm", token.rpmLimit === null ? "no limit" : String(token.rpmLimit)],
    ["tpm", token.tpmLimit === null ? "no limit" : String(token.tpmLimit)],
    ["response cache", describeCache(token)],
    ["last used", formatDate(token.lastUsedAt, "never")],
    ...previousKeyFields(token, now),
    ["created", token.createdAt.toISOString()],
  ];
}

/** The secret a roll replaced, while it still works (its grace period). */
function previousKeyFields(token: TokenView, now: Date): [string, string][] {
  if (token.previousKeyExpiresAt === null || token.previousKeyExpiresAt.getTime() <= now.getTime()) return [];
  return [
    ["previous key", `${token.previousKeyPrefix} (works until ${token.previousKeyExpiresAt.toISOString()})`],
    ["previous key last used", formatDate(token.previousKeyLastUsedAt, "never")],
  ];
}

/** `24h`, `30m`, `90s`, `7d`, or a bare number of hours; `0` ends the old secret at once. */
function graceSecondsFromText(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*([smhd]?)$/i.exec(value.trim());
  if (!match) throw new CommandError(`--grace must be a duration such as 24h, 30m, 7d or 0, not "${value}"`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400, "": 3600 }[match[2]!.toLowerCase() as "s" | "m" | "h" | "d" | ""];
  return Number(match[1]) * unit;
}

async function rollTokenCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "token roll",
    flags: { grace: "string", json: "boolean" },
    positionals: ["ID"],
  });
  const id = recordIdFromText(positionals[0] as string, "token");
  const input = parseInput(rollTokenSchema, { id, graceSeconds: graceSecondsFromText(flags.grace) }, { graceSeconds: "--grace" });
  const { token, secret } = await rollToken(context.db, cliOperator, input);
  if (flags.json) {
    const { id: tokenId, ...details } = tokenJson(token, now);
    return formatJson({ id: tokenId, key: secret, ...details });
  }
  const previous =
    token.previousKeyExpiresAt === null
      ? "The previous key is refused from now on."
      : `The previous key (${token.previousKeyPrefix}) keeps working until ${token.previousKeyExpiresAt.toISOString()}.`;
  return [
    formatFields(tokenFields(token, now)),
    `key: ${secret}`,
    "",
    previous,
    "WARNING: this key is shown only once and cannot be recovered. Store it now.",
    "",
  ].join("\n");
}

async function createTokenCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags } = parseCommandArguments(argv, {
    command: "token create",
    flags: { user: "string", team: "string", name: "string", models: "string", expires: "string", ip: "string", group: "string", ...updatableFlags },
  });
  const userNameOrId = requireFlag(flags.user, "user");
  const input = parseInput(
    createTokenSchema,
    {
      name: flags.name,
      allowedModels: listFromText(flags.models, "models"),
      quotaLimit: flags.quota,
      expiresAt: flags.expires,
      allowedIps: listFromText(flags.ip, "ip", "entries"),
      group: flags.group,
      rpmLimit: integerFromText(flags.rpm),
      tpmLimit: integerFromText(flags.tpm),
      ...periodAndCacheInput(flags),
    },
    tokenFlags,
  );
  const user = await findUser(context.db, userNameOrId);
  const team = flags.team === undefined ? null : await findTeam(context.db, flags.team);
  const { token, secret } = await createToken(context.db, cliOperator, { ...input, userId: user.id, teamId: team?.id ?? null });
  if (flags.json) {
    const { id, ...details } = tokenJson(token, now);
    return formatJson({ id, key: secret, ...details });
  }
  return [
    formatFields(tokenFields(token, now).filter(([field]) => !["last used", "quota used", "spent", "spent this period"].includes(field))),
    `key: ${secret}`,
    "",
    "WARNING: this key is shown only once and cannot be recovered. Store it now;",
    "         if it is lost, create a new token and delete this one.",
    "",
  ].join("\n");
}

async function updateTokenCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "token update",
    flags: { ...updatableFlags, "mcp-servers": "string", "mcp-tools": "string" },
    positionals: ["ID"],
  });
  const id = recordIdFromText(positionals[0] as string, "token");
  const given = [flags.rpm, flags.tpm, flags.quota, flags.period, flags["time-zone"], flags["alert-at"], flags["cache-ttl"], flags["cache-scope"]];
  const mcpInput = tokenMcpAccessFromFlags(id, flags["mcp-servers"], flags["mcp-tools"]);
  if (given.every((value) => value === undefined)) {
    if (mcpInput !== null) {
      const mcpAccess = await setTokenMcpAccess(context.db, cliOperator, mcpInput);
      return flags.json ? formatJson(mcpAccess) : formatFields([["token", String(id)], ...mcpAccessFields(mcpAccess)]);
    }
    throw new CommandError("token update needs --rpm, --tpm, --quota, --period, --time-zone, --alert-at, --cache-ttl, --cache-scope, --mcp-servers or --mcp-tools");
  }
  const changes = parseInput(
    updateTokenSchema,
    {
      id,
      rpmLimit: limitOrNone(flags.rpm),
      tpmLimit: limitOrNone(flags.tpm),
      quotaLimit: flags.quota,
      ...periodAndCacheInput(flags),
    },
    tokenFlags,
  );
  const token = await updateToken(context.db, cliOperator, changes);
  const mcpAccess = mcpInput === null ? null : await setTokenMcpAccess(context.db, cliOperator, mcpInput);
  if (flags.json) return formatJson(mcpAccess ? { ...tokenJson(token, now), mcpServers: mcpAccess.mcpServers, mcpTools: mcpAccess.mcpTools } : tokenJson(token, now));
  return formatFields([...tokenFields(token, now), ...(mcpAccess ? mcpAccessFields(mcpAccess) : [])]);
}

async function listTokensCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags } = parseCommandArguments(argv, { command: "token list", flags: { user: "string", json: "boolean" } });
  const owner = flags.user === undefined ? undefined : await findUser(context.db, flags.user);
  const rows = await listTokens(context.db, cliOperator, { userId: owner?.id });
  if (flags.json) return formatJson(rows.map((token) => tokenJson(token, now)));
  return formatTable(
    ["ID", "NAME", "USER", "PREFIX", "STATUS", "USED", "LIMIT", "PERIOD", "RESETS", "EXPIRES"],
    rows.map((token) => [
      String(token.id),
      token.name,
      token.userName,
      token.keyPrefix,
      displayStatus(token, now),
      formatUsd(token.budget.spent),
      formatUsd(token.quotaLimit),
      token.budgetPeriod,
      formatDate(token.budget.resetsAt, "-"),
      formatDate(token.expiresAt, "never"),
    ]),
  );
}

async function showToken(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "token show",
    flags: { json: "boolean" },
    positionals: ["ID"],
  });
  const token = await getToken(context.db, cliOperator, recordIdFromText(positionals[0] as string, "token"));
  if (flags.json) return formatJson(tokenJson(token, now));
  return formatFields(tokenFields(token, now));
}

export const tokenCommands: Record<string, CommandHandler> = {
  create: createTokenCommand,
  update: updateTokenCommand,
  roll: rollTokenCommand,
  list: listTokensCommand,
  show: showToken,
  enable: statusCommand("token enable", async (id, { db }) => statusOf(await updateToken(db, cliOperator, { id, status: "enabled" }))),
  disable: statusCommand("token disable", async (id, { db }) => statusOf(await updateToken(db, cliOperator, { id, status: "disabled" }))),
  delete: statusCommand("token delete", async (id, { db }) => ({ ...(await deleteToken(db, cliOperator, id)), deleted: true })),
};
