import { errorCauses } from "@tollgate/db";

/**
 * A one-line description of an unexpected error, for the CLI's `error:` line and the console's log. Drizzle's
 * own message lists the query parameters (which can be a key hash or an encrypted key), so the innermost
 * cause's first line is used instead.
 */
export function describeUnexpectedError(error: unknown): string {
  const chain = errorCauses(error);
  const innermost = chain[chain.length - 1];
  const message = innermost instanceof Error ? innermost.message : String(innermost);
  return message.split("\n")[0] ?? "unknown error";
}
