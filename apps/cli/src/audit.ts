import { auditRetentionSchema, cliOperator, listAudit, listAuditSchema, purgeAuditLog, setAuditRetention, getAuditRetention, verifyAuditChain } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { CommandError } from "./command-error";
import { integerFromText, parseInput } from "./flag-values";
import { formatFields, formatJson, formatTable } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** Exit code 1 when the chain is broken: not a usage error, a finding. */
async function verifyCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "audit verify", flags: { json: "boolean" } });
  const result = await verifyAuditChain(context.db);
  if (!result.ok && result.firstBroken) {
    if (flags.json) throw new CommandError(JSON.stringify(result), { exitCode: 1 });
    throw new CommandError(`audit log broken at row ${result.firstBroken.id}: ${result.firstBroken.reason} (${result.checked} rows before it chain correctly)`, { exitCode: 1 });
  }
  if (flags.json) return formatJson(result);
  return `audit log intact: ${result.checked} rows chain correctly\n`;
}

async function listCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, {
    command: "audit list",
    flags: { actor: "string", action: "string", object: "string", "object-id": "string", from: "string", to: "string", limit: "string", cursor: "string", json: "boolean" },
  });
  const input = parseInput(
    listAuditSchema,
    {
      actor: flags.actor,
      action: flags.action,
      objectType: flags.object,
      objectId: flags["object-id"],
      from: flags.from,
      to: flags.to,
      limit: integerFromText(flags.limit) ?? undefined,
      cursor: flags.cursor,
    },
    { actor: "--actor", action: "--action", objectType: "--object", objectId: "--object-id", from: "--from", to: "--to", limit: "--limit", cursor: "--cursor" },
  );
  const page = await listAudit(context.db, cliOperator, input);
  if (flags.json) return formatJson(page);
  const table = formatTable(
    ["ID", "AT", "ACTOR", "FROM", "ACTION", "OBJECT"],
    page.items.map((row) => [
      String(row.id),
      row.at.toISOString(),
      `${row.actorKind}${row.actorName ? ` ${row.actorName}` : ""}${row.actorId === null ? "" : ` #${row.actorId}`}`,
      row.sourceAddress ?? "-",
      row.action,
      `${row.objectType} ${row.objectId ?? ""}`.trim(),
    ]),
  );
  return page.nextCursor === null ? table : `${table}more: --cursor ${page.nextCursor}\n`;
}

async function retentionCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "audit retention", flags: { days: "string", forever: "boolean", json: "boolean" } });
  if (flags.days !== undefined && flags.forever) throw new CommandError("give --days or --forever, not both");
  const changed = flags.days !== undefined || flags.forever === true;
  const retention = changed
    ? await setAuditRetention(context.db, cliOperator, parseInput(auditRetentionSchema, { days: flags.forever ? null : integerFromText(flags.days) }, { days: "--days" }))
    : await getAuditRetention(context.db);
  if (flags.json) return formatJson(retention);
  return formatFields([["audit retention", retention.days === null ? "forever" : `${retention.days} days`]]);
}

async function purgeCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "audit purge", flags: { json: "boolean" } });
  const result = await purgeAuditLog(context.db);
  if (flags.json) return formatJson(result);
  return `purged ${result.deleted} audit rows older than the retention\n`;
}

export const auditCommands: Record<string, CommandHandler> = {
  verify: verifyCommand,
  list: listCommand,
  retention: retentionCommand,
  purge: purgeCommand,
};
