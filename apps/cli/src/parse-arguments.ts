import { parseArgs } from "node:util";
import { CommandError } from "./command-error";

export type FlagKind = "string" | "boolean";
export type FlagSpec = Record<string, FlagKind>;

/** String flags hold their value, boolean flags `true`; an absent flag is undefined. */
export type ParsedFlags<Spec extends FlagSpec> = {
  [Name in keyof Spec]?: Spec[Name] extends "string" ? string : true;
};

export interface ArgumentSpec<Spec extends FlagSpec> {
  /** The command as typed, for messages: `token show`. */
  command: string;
  flags: Spec;
  /** Names of the required positional arguments, in order: `["ID"]`. */
  positionals?: readonly string[];
}

export interface ParsedArguments<Spec extends FlagSpec> {
  flags: ParsedFlags<Spec>;
  positionals: string[];
}

/**
 * Strict flag parsing on top of `node:util` parseArgs. Its own strict mode is not used because its
 * messages repeat the offending argument, which may be a key; every message here names only the flag.
 */
export function parseCommandArguments<Spec extends FlagSpec>(
  argv: readonly string[],
  spec: ArgumentSpec<Spec>,
): ParsedArguments<Spec> {
  const options = Object.fromEntries(Object.entries(spec.flags).map(([name, type]) => [name, { type }]));
  let tokens: ReturnType<typeof parseArgs>["tokens"];
  try {
    tokens = parseArgs({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true }).tokens;
  } catch {
    throw new CommandError(`could not parse the arguments of ${spec.command}`);
  }
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (const token of tokens ?? []) {
    if (token.kind === "option-terminator") continue;
    if (token.kind === "positional") {
      positionals.push(token.value);
      continue;
    }
    const kind = spec.flags[token.name];
    if (kind === undefined || token.rawName !== `--${token.name}`) {
      const resource = spec.command.split(" ")[0];
      throw new CommandError(`unknown flag ${token.rawName} for ${spec.command} (run "help ${resource}" for usage)`);
    }
    if (Object.hasOwn(flags, token.name)) throw new CommandError(`${token.rawName} was given more than once`);
    if (kind === "boolean") {
      if (token.value !== undefined) throw new CommandError(`${token.rawName} does not take a value`);
      flags[token.name] = true;
      continue;
    }
    if (token.value === undefined) throw new CommandError(`${token.rawName} needs a value`);
    if (!token.inlineValue && token.value.startsWith("--")) {
      throw new CommandError(`${token.rawName} needs a value (write ${token.rawName}=VALUE for one starting with "--")`);
    }
    if (token.value.trim() === "") throw new CommandError(`${token.rawName} must not be empty`);
    flags[token.name] = token.value;
  }
  const expected = spec.positionals ?? [];
  if (positionals.length < expected.length) {
    throw new CommandError(`missing ${expected[positionals.length]} for ${spec.command}`);
  }
  if (positionals.length > expected.length) {
    const shape = [spec.command, ...expected].join(" ");
    throw new CommandError(`too many arguments for ${spec.command} (expected: ${shape} [flags])`);
  }
  return { flags: flags as ParsedFlags<Spec>, positionals };
}

/** Returns the value of a required string flag or fails with `--name is required`. */
export function requireFlag(value: string | undefined, flag: string): string {
  if (value === undefined) throw new CommandError(`--${flag} is required`);
  return value;
}
