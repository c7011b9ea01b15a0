import type { Database } from "@tollgate/db";
import type { SecretBox, UpstreamAddressPolicy } from "@tollgate/shared";

/** Everything a command needs; passed in, so the gateway can run commands in-process on its own database. */
export interface CommandContext {
  db: Database;
  secretBox: SecretBox;
  /** Which hosts channels and the webhook may point at; default: private networks allowed. */
  addressPolicy?: UpstreamAddressPolicy;
  /** MCP_STDIO_ENABLED: `mcp test` may run a stdio server's command. */
  mcpStdioEnabled?: boolean;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs one subcommand; returns what goes to stdout, throws CommandError for what the operator must fix. */
export type CommandHandler = (argv: readonly string[], context: CommandContext) => Promise<string>;
