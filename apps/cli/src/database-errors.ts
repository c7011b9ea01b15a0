function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** True for Postgres error 23505, whether it comes from postgres.js, PGlite or wrapped by Drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  return causes(error).some((item) => (item as { code?: unknown }).code === "23505");
}

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
