/** An error and its `cause` chain, outermost first (bounded). */
export function errorCauses(error: unknown): unknown[] {
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
  return errorCauses(error).some((item) => (item as { code?: unknown }).code === "23505");
}
