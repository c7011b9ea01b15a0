import { AdminError, describeUnexpectedError } from "@tollgate/admin";
import { alertCommands } from "./alerts";
import { auditCommands } from "./audit";
import { apiKeyCommands } from "./api-keys";
import { channelCommands } from "./channels";
import type { CommandContext, CommandHandler, CommandResult } from "./command-context";
import { CommandError, USAGE_EXIT_CODE } from "./command-error";
import { asLine } from "./flag-values";
import { mcpCommands } from "./mcp";
import { logCommands } from "./logs";
import { modelCommands } from "./models";
import { teamCommands } from "./teams";
import { tokenCommands } from "./tokens";
import { isResource, type Resource, usageText } from "./usage";
import { userCommands } from "./users";

export type { CommandContext, CommandResult } from "./command-context";

const commands: Record<Resource, Record<string, CommandHandler>> = {
  user: userCommands,
  channel: channelCommands,
  model: modelCommands,
  token: tokenCommands,
  alerts: alertCommands,
  mcp: mcpCommands,
  logs: logCommands,
  team: teamCommands,
  audit: auditCommands,
  apikey: apiKeyCommands,
};

const HELP_WORDS = new Set(["help", "--help", "-h"]);

function wantsHelp(argv: readonly string[]): boolean {
  const terminator = argv.indexOf("--");
  const flags = terminator === -1 ? argv : argv.slice(0, terminator);
  return flags.includes("--help") || flags.includes("-h");
}

function failure(message: string, exitCode: number): CommandResult {
  return { exitCode, stdout: "", stderr: `error: ${message}\n` };
}

/**
 * Runs one admin command, e.g. `["token", "create", "--user", "alice", "--name", "ci"]`, and returns what
 * to print instead of printing it. Holds no state between calls, so the gateway can run it in-process for
 * a CLI that cannot open the embedded database itself. Bad arguments and unknown ids give exit code 2
 * with a one-line message and write nothing (a mistyped command names the help to read, instead of
 * printing the whole usage under the error); unexpected failures give exit code 1.
 */
export async function runCommand(argv: string[], context: CommandContext): Promise<CommandResult> {
  const [first, second, ...rest] = argv;
  if (first === undefined || HELP_WORDS.has(first)) {
    const resource = second !== undefined && isResource(second) ? second : undefined;
    return { exitCode: 0, stdout: usageText(resource), stderr: "" };
  }
  if (!isResource(first)) return failure(`unknown command ${JSON.stringify(first)} (run "help" for usage)`, 2);
  if (second === undefined || HELP_WORDS.has(second) || wantsHelp(rest)) {
    if (second === undefined) return failure(`missing ${first} command (run "help ${first}" for usage)`, 2);
    return { exitCode: 0, stdout: usageText(first), stderr: "" };
  }
  const handler = Object.hasOwn(commands[first], second) ? commands[first][second] : undefined;
  if (handler === undefined) {
    return failure(`unknown command ${JSON.stringify(`${first} ${second}`)} (run "help ${first}" for usage)`, 2);
  }
  try {
    return { exitCode: 0, stdout: await handler(rest, context), stderr: "" };
  } catch (error) {
    if (error instanceof CommandError) return failure(error.message, error.exitCode);
    // A refusal of the admin domain (unknown id, name taken) is the operator's to fix, like bad arguments.
    if (error instanceof AdminError) return failure(asLine(error.message), USAGE_EXIT_CODE);
    return failure(describeUnexpectedError(error), 1);
  }
}
