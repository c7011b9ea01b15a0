import { recordIdSchema } from "@tollgate/admin";
import type { z } from "zod";
import { CommandError } from "./command-error";

/**
 * From flag text to the values the admin schemas (packages/admin) check. The rules themselves live there,
 * once for the CLI and the console; what is here is only how a command line writes a value: lists are
 * comma-separated, integers are plain digits, a mapping is `public=upstream`.
 */

/** A sentence as it reads after `error: ` (or after a flag): its first letter lowered, unless it starts an acronym. */
export function asLine(message: string): string {
  return /^[A-Z](?![A-Z])/.test(message) ? message[0]!.toLowerCase() + message.slice(1) : message;
}

/**
 * A schema's message put after the flag it is about: `--rpm must be a positive integer`, or, for a message
 * that begins with the offending value, `--ip: "1.2.3" is not an IP address ...`.
 */
function flagMessage(label: string, message: string): string {
  return message.startsWith('"') ? `${label}: ${message}` : `${label} ${asLine(message)}`;
}

function refuse(error: z.ZodError, labels: Record<string, string>): never {
  const issue = error.issues[0];
  const field = String(issue?.path[0] ?? "");
  throw new CommandError(flagMessage(labels[field] ?? `--${field}`, issue?.message ?? "Is not valid"));
}

/**
 * Parses a command's values with an admin schema (a flag not given is undefined: the schema says whether
 * it is required) and returns the schema's output, or throws its first problem as a CommandError naming
 * the flag: `labels` gives the flag of each field not spelled `--field`.
 */
export function parseInput<Schema extends z.ZodType<unknown, object>>(
  schema: Schema,
  values: { [Field in keyof z.input<Schema>]?: z.input<Schema>[Field] | undefined },
  labels: Record<string, string> = {},
): z.output<Schema> {
  const parsed = schema.safeParse(values);
  if (!parsed.success) refuse(parsed.error, labels);
  return parsed.data;
}

/** `12`, `-3`: the number; anything else (`1.5`, `1e2`, `0x10`) NaN, which every integer rule refuses. A flag not given stays undefined. */
export function integerFromText(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** A row id given as a positional argument (`token show 12`). */
export function recordIdFromText(value: string, what: string): number {
  const trimmed = value.trim();
  const id = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  const parsed = recordIdSchema.safeParse(id);
  if (!parsed.success) refuse(parsed.error, { "": `${what} id` });
  return parsed.data;
}

/** `a,b, c` -> ["a","b","c"], trimmed; an empty item is a typing mistake, refused. A flag not given stays undefined. */
export function listFromText(value: string | undefined, flag: string, items = "names"): string[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(",").map((item) => item.trim());
  if (list.some((item) => item === "")) throw new CommandError(`--${flag} must be a comma-separated list of non-empty ${items}`);
  return list;
}

/** A list flag on update: comma-separated items, or `none` for an empty list (no restriction). */
export function listOrNone(value: string | undefined, flag: string, items?: string): string[] | undefined {
  return value?.trim().toLowerCase() === "none" ? [] : listFromText(value, flag, items);
}

/** A per-minute limit on update: a positive integer, or `none` to remove it. */
export function limitOrNone(value: string | undefined): number | null | undefined {
  return value?.trim().toLowerCase() === "none" ? null : integerFromText(value);
}

/**
 * `key=value[,key2=value2]` -> { key: value }, both sides trimmed. A pair missing either side is refused
 * (`--flag must be a comma-separated list of <pairs>`); so is a key given twice when `twice` names what the
 * flag does with a key (`--map maps "a" twice`); otherwise the last value of a key counts. A flag not given
 * stays undefined.
 */
export function pairsFromText(value: string | undefined, flag: string, pairs: string, twice?: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const table: Record<string, string> = {};
  for (const pair of value.split(",")) {
    const separator = pair.indexOf("=");
    const key = separator === -1 ? "" : pair.slice(0, separator).trim();
    const entry = separator === -1 ? "" : pair.slice(separator + 1).trim();
    if (key === "" || entry === "") throw new CommandError(`--${flag} must be a comma-separated list of ${pairs}`);
    if (twice !== undefined && Object.hasOwn(table, key)) throw new CommandError(`--${flag} ${twice} "${key}" twice`);
    table[key] = entry;
  }
  return table;
}

/** `public=upstream[,public2=upstream2]`; whether the public names are the channel's models is the schema's rule. */
export function modelMappingFromText(value: string | undefined, flag: string): Record<string, string> | undefined {
  return pairsFromText(value, flag, "public=upstream model names", "maps");
}
