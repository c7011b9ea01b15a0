import { cliOperator, getLogRetention, logRetentionSchema, setLogRetention } from "@tollgate/admin";
import type { CommandContext, CommandHandler } from "./command-context";
import { integerFromText, parseInput } from "./flag-values";
import { formatFields, formatJson } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** `logs retention [--days N]`: prints the request-log retention, or sets it. */
async function logRetentionCommand(argv: readonly string[], context: CommandContext): Promise<string> {
  const { flags } = parseCommandArguments(argv, { command: "logs retention", flags: { days: "string", json: "boolean" } });
  const view =
    flags.days === undefined
      ? await getLogRetention(context.db)
      : await setLogRetention(context.db, cliOperator, parseInput(logRetentionSchema, { days: integerFromText(flags.days) }, { days: "--days" }));
  if (flags.json) return formatJson(view);
  return formatFields([["request log retention", view.days === 0 ? "forever (0: no row is purged)" : `${view.days} days`]]);
}

export const logCommands: Record<string, CommandHandler> = {
  retention: logRetentionCommand,
};
