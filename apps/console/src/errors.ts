import { TRPCError } from "@trpc/server";

/** Validation failures found after input parsing (unknown user, duplicate name), keyed by form field. */
export class FieldErrors extends Error {
  constructor(readonly fieldErrors: Record<string, string[]>) {
    super(Object.values(fieldErrors).flat().join("; "));
    this.name = "FieldErrors";
  }
}

export function fieldError(field: string, message: string): TRPCError {
  return new TRPCError({ code: "BAD_REQUEST", message, cause: new FieldErrors({ [field]: [message] }) });
}

export function notFound(what: string): TRPCError {
  return new TRPCError({ code: "NOT_FOUND", message: `${what} not found` });
}

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 10) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** Postgres 23505, from postgres.js or PGlite, possibly wrapped by Drizzle. */
export function isUniqueViolation(error: unknown): boolean {
  return causes(error).some((item) => (item as { code?: unknown }).code === "23505");
}
