import { errorCauses as causes, isUniqueViolation } from "@tollgate/db";

export { isUniqueViolation };

/**
 * A one-line description of an unexpected error. Drizzle's own message lists the query parameters (which
 * can be a key hash or an encrypted key), so the innermost cause's first line is used instead.
 */
export function describeUnexpectedError(error: unknown): string {
  const chain = causes(error);
  const innermost = chain[chain.length - 1];
  const message = innermost instanceof Error ? innermost.message : String(innermost);
  return message.split("\n")[0] ?? "unknown error";
}
