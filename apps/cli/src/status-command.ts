import type { CommandContext, CommandHandler } from "./command-context";
import { recordIdFromText } from "./flag-values";
import { formatJson } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** What `enable`, `disable` and `delete` print: the row they changed, by id and name. */
export type StatusOutcome = { id: number; name: string; status: string } | { id: number; name: string; deleted: true };

export function statusOf(row: { id: number; name: string; status: string }): StatusOutcome {
  return { id: row.id, name: row.name, status: row.status };
}

/**
 * A command that takes one row id and changes it: `channel enable 3` prints `channel 3 (name) enabled`
 * (with --json, the outcome as JSON). `command` is the command as typed, e.g. "token disable".
 */
export function statusCommand(command: string, apply: (id: number, context: CommandContext) => Promise<StatusOutcome>): CommandHandler {
  const resource = command.split(" ")[0] as string;
  return async (argv, context) => {
    const { flags, positionals } = parseCommandArguments(argv, { command, flags: { json: "boolean" }, positionals: ["ID"] });
    const outcome = await apply(recordIdFromText(positionals[0] as string, resource), context);
    if (flags.json) return formatJson(outcome);
    return `${resource} ${outcome.id} (${outcome.name}) ${"deleted" in outcome ? "deleted" : outcome.status}\n`;
  };
}
