import type { CommandContext, CommandHandler } from "./command-context";
import { formatJson, formatTable } from "./format-output";
import { parseCommandArguments } from "./parse-arguments";

/** One column of a list command's table: its header and how a row reads in it. */
export type ListColumn<Row> = readonly [header: string, cell: (row: Row) => string];

/**
 * A `<noun> list` command without filters: `--json` prints one JSON array (each row through `json`), otherwise
 * a table of `columns`, `(none)` when there is no row.
 */
export function listCommand<Row>(
  command: string,
  spec: { load(context: CommandContext): Promise<Row[]>; json(row: Row): unknown; columns: ReadonlyArray<ListColumn<Row>> },
): CommandHandler {
  return async (argv, context) => {
    const { flags } = parseCommandArguments(argv, { command, flags: { json: "boolean" } });
    const rows = await spec.load(context);
    if (flags.json) return formatJson(rows.map(spec.json));
    return formatTable(
      spec.columns.map(([header]) => header),
      rows.map((row) => spec.columns.map(([, cell]) => cell(row))),
    );
  };
}
