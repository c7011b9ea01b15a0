import { type ApiKeyView, cliOperator, createApiKey, createApiKeySchema, findTeam, listApiKeys, revokeApiKey } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { parseInput, recordIdFromText } from "./flag-values";
import { formatDate, formatFields, formatJson, formatTable } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

function apiKeyJson(key: ApiKeyView) {
  return { ...key, createdAt: key.createdAt.toISOString(), lastUsedAt: key.lastUsedAt?.toISOString() ?? null, revokedAt: key.revokedAt?.toISOString() ?? null };
}

async function createCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "apikey create", flags: { name: "string", scope: "string", team: "string", json: "boolean" } });
  // `--team NAME_OR_ID`, resolved as `token create --team` does: the key then acts as that team's admin.
  const team = flags.team === undefined ? null : await findTeam(context.db, flags.team);
  const input = parseInput(createApiKeySchema, { name: flags.name, scope: flags.scope as "read" | "write" | undefined, teamId: team?.id ?? null }, { name: "--name", scope: "--scope", teamId: "--team" });
  const { apiKey, secret } = await createApiKey(context.db, cliOperator, input);
  if (flags.json) return formatJson({ ...apiKeyJson(apiKey), secret });
  return formatFields([
    ["created API key", String(apiKey.id)],
    ["name", apiKey.name],
    ["scope", apiKey.scope],
    ["team", apiKey.teamId === null ? "any" : String(apiKey.teamId)],
    ["key", secret],
    ["note", "the key is shown only now: store it"],
  ]);
}

async function listCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "apikey list", flags: { json: "boolean" } });
  const keys = await listApiKeys(context.db, cliOperator);
  if (flags.json) return formatJson(keys.map(apiKeyJson));
  return formatTable(
    ["ID", "NAME", "KEY", "SCOPE", "TEAM", "LAST USED", "REVOKED"],
    keys.map((key) => [String(key.id), key.name, key.keyPrefix, key.scope, key.teamId === null ? "any" : String(key.teamId), formatDate(key.lastUsedAt, "never"), formatDate(key.revokedAt, "-")]),
  );
}

async function revokeCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags, positionals } = parseCommandArguments(argv, { command: "apikey revoke", flags: { json: "boolean" }, positionals: ["ID"] });
  const key = await revokeApiKey(context.db, cliOperator, recordIdFromText(positionals[0] as string, "API key"));
  if (flags.json) return formatJson(apiKeyJson(key));
  return `API key ${key.id} (${key.name}) revoked\n`;
}

export const apiKeyCommands: Record<string, CommandHandler> = {
  create: createCommand,
  list: listCommand,
  revoke: revokeCommand,
};
