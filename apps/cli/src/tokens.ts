import { tokens, users, tokenPublicColumns } from "@tollgate/db";
import { displayPrefix, generateTokenSecret, hashTokenSecret } from "@tollgate/shared";
import { asc, eq } from "drizzle-orm";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { findUser } from "./find-user";
import { grantedLimitsOf, mergeGrantedLimits } from "./granted-limits";
import { formatDate, formatFields, formatJson, formatList, formatTable, formatUsd, usdForJson } from "./format-output";
import { parseCommandArguments, requireFlag } from "./parse-arguments";
import { parseExpiry } from "./parse-expiry";
import { parseIpAllowList } from "./parse-ip-allow-list";
import {
  parseGroupName,
  parseInteger,
  parseName,
  parseNameList,
  parseRecordId,
  parseUsdOrUnlimited,
} from "./parse-values";

type TokenRow = typeof tokens.$inferSelect;

const tokenColumns = tokenPublicColumns;

type TokenView = Omit<TokenRow, "keyHash" | "updatedAt" | "grantedLimits"> & { userName: string };

function remainingQuota(token: TokenView): number | null {
  return token.quotaLimit === null ? null : Math.max(0, token.quotaLimit - token.usedQuota);
}

function isExpired(token: TokenView, now: Date): boolean {
  return token.expiresAt !== null && token.expiresAt.getTime() <= now.getTime();
}

function tokenJson(token: TokenView, now: Date) {
  return {
    id: token.id,
    name: token.name,
    userId: token.userId,
    userName: token.userName,
    prefix: token.keyPrefix,
    status: token.status,
    expired: isExpired(token, now),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    quotaLimit: usdForJson(token.quotaLimit),
    quotaUsed: usdForJson(token.usedQuota),
    quotaRemaining: usdForJson(remainingQuota(token)),
    models: token.allowedModels,
    ips: token.allowedIps,
    group: token.group,
    rpm: token.rpmLimit,
    tpm: token.tpmLimit,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    createdAt: token.createdAt.toISOString(),
  };
}

function displayStatus(token: TokenView, now: Date): string {
  const notes: string[] = [];
  if (isExpired(token, now)) notes.push("expired");
  if (token.quotaLimit !== null && token.usedQuota >= token.quotaLimit) notes.push("quota used up");
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
    ["expires", formatDate(token.expiresAt, "never")],
    ["models", formatList(token.allowedModels, "all models of the group")],
    ["ips", formatList(token.allowedIps, "any")],
    ["group", token.group ?? `owner's group`],
    ["rpm", token.rpmLimit === null ? "no limit" : String(token.rpmLimit)],
    ["tpm", token.tpmLimit === null ? "no limit" : String(token.tpmLimit)],
    ["last used", formatDate(token.lastUsedAt, "never")],
    ["created", token.createdAt.toISOString()],
  ];
}

async function loadToken(context: CommandContext, id: number): Promise<TokenView> {
  const [token] = await context.db
    .select(tokenColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(eq(tokens.id, id))
    .limit(1);
  if (!token) throw new CommandError(`unknown token id ${id}`);
  return token;
}

async function createToken(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags } = parseCommandArguments(argv, {
    command: "token create",
    flags: {
      user: "string",
      name: "string",
      models: "string",
      quota: "string",
      expires: "string",
      ip: "string",
      group: "string",
      rpm: "string",
      tpm: "string",
      json: "boolean",
    },
  });
  const userNameOrId = requireFlag(flags.user, "user");
  const name = parseName(requireFlag(flags.name, "name"), "name");
  const allowedModels = flags.models === undefined ? [] : parseNameList(flags.models, "models");
  const quotaLimit = flags.quota === undefined ? null : parseUsdOrUnlimited(flags.quota, "quota");
  const expiresAt = flags.expires === undefined ? null : parseExpiry(flags.expires, "expires", now);
  const allowedIps = flags.ip === undefined ? [] : parseIpAllowList(flags.ip, "ip");
  const group = flags.group === undefined ? null : parseGroupName(flags.group, "group");
  const rpmLimit = flags.rpm === undefined ? null : parseInteger(flags.rpm, "rpm", 1);
  const tpmLimit = flags.tpm === undefined ? null : parseInteger(flags.tpm, "tpm", 1);
  const user = await findUser(context.db, userNameOrId);

  const limits = { expiresAt, quotaLimit, allowedModels, allowedIps, rpmLimit, tpmLimit };
  const secret = generateTokenSecret();
  const [created] = await context.db
    .insert(tokens)
    .values({
      userId: user.id,
      name,
      keyHash: hashTokenSecret(secret),
      keyPrefix: displayPrefix(secret),
      group,
      ...limits,
      grantedLimits: grantedLimitsOf(limits),
    })
    .returning({ id: tokens.id });
  if (!created) throw new Error("the new token was not returned");
  const token = await loadToken(context, created.id);
  if (flags.json) {
    const { id, ...details } = tokenJson(token, now);
    return formatJson({ id, key: secret, ...details });
  }
  return [
    formatFields(tokenFields(token, now).filter(([field]) => !["last used", "quota used"].includes(field))),
    `key: ${secret}`,
    "",
    "WARNING: this key is shown only once and cannot be recovered. Store it now;",
    "         if it is lost, create a new token and delete this one.",
    "",
  ].join("\n");
}

/** A per-minute limit on update: a positive integer, or `none` to remove it. */
function parseLimitOrNone(value: string, flag: string): number | null {
  return value.trim().toLowerCase() === "none" ? null : parseInteger(value, flag, 1);
}

async function updateToken(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "token update",
    flags: { rpm: "string", tpm: "string", json: "boolean" },
    positionals: ["ID"],
  });
  const id = parseRecordId(positionals[0] as string, "token");
  const changes: Partial<Pick<TokenRow, "rpmLimit" | "tpmLimit">> = {};
  if (flags.rpm !== undefined) changes.rpmLimit = parseLimitOrNone(flags.rpm, "rpm");
  if (flags.tpm !== undefined) changes.tpmLimit = parseLimitOrNone(flags.tpm, "tpm");
  if (Object.keys(changes).length === 0) throw new CommandError("token update needs --rpm or --tpm");
  const [updated] = await context.db
    .update(tokens)
    .set({ ...changes, grantedLimits: mergeGrantedLimits(changes), updatedAt: new Date() })
    .where(eq(tokens.id, id))
    .returning({ id: tokens.id });
  if (!updated) throw new CommandError(`unknown token id ${id}`);
  const token = await loadToken(context, id);
  if (flags.json) return formatJson(tokenJson(token, now));
  return formatFields(tokenFields(token, now));
}

async function listTokens(argv: readonly string[], context: CommandContext): Promise<string> {
  const now = new Date();
  const { flags } = parseCommandArguments(argv, { command: "token list", flags: { user: "string", json: "boolean" } });
  const owner = flags.user === undefined ? null : await findUser(context.db, flags.user);
  const rows = await context.db
    .select(tokenColumns)
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(owner === null ? undefined : eq(tokens.userId, owner.id))
    .orderBy(asc(tokens.id));
  if (flags.json) return formatJson(rows.map((token) => tokenJson(token, now)));
  return formatTable(
    ["ID", "NAME", "USER", "PREFIX", "STATUS", "USED", "LIMIT", "EXPIRES"],
    rows.map((token) => [
      String(token.id),
      token.name,
      token.userName,
      token.keyPrefix,
      displayStatus(token, now),
      formatUsd(token.usedQuota),
      formatUsd(token.quotaLimit),
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
  const token = await loadToken(context, parseRecordId(positionals[0] as string, "token"));
  if (flags.json) return formatJson(tokenJson(token, now));
  return formatFields(tokenFields(token, now));
}

function setTokenStatus(status: "enabled" | "disabled"): CommandHandler {
  const command = status === "enabled" ? "token enable" : "token disable";
  return async (argv, { db }) => {
    const { flags, positionals } = parseCommandArguments(argv, {
      command,
      flags: { json: "boolean" },
      positionals: ["ID"],
    });
    const id = parseRecordId(positionals[0] as string, "token");
    const [updated] = await db
      .update(tokens)
      .set({ status, grantedLimits: mergeGrantedLimits({ status }), updatedAt: new Date() })
      .where(eq(tokens.id, id))
      .returning({ id: tokens.id, name: tokens.name, status: tokens.status });
    if (!updated) throw new CommandError(`unknown token id ${id}`);
    if (flags.json) return formatJson(updated);
    return `token ${updated.id} (${updated.name}) ${updated.status}\n`;
  };
}

async function deleteToken(argv: readonly string[], { db }: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, {
    command: "token delete",
    flags: { json: "boolean" },
    positionals: ["ID"],
  });
  const id = parseRecordId(positionals[0] as string, "token");
  const [deleted] = await db.delete(tokens).where(eq(tokens.id, id)).returning({ id: tokens.id, name: tokens.name });
  if (!deleted) throw new CommandError(`unknown token id ${id}`);
  if (flags.json) return formatJson({ ...deleted, deleted: true });
  return `token ${deleted.id} (${deleted.name}) deleted\n`;
}

export const tokenCommands: Record<string, CommandHandler> = {
  create: createToken,
  update: updateToken,
  list: listTokens,
  show: showToken,
  enable: setTokenStatus("enabled"),
  disable: setTokenStatus("disabled"),
  delete: deleteToken,
};
