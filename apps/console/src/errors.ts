import { isUniqueViolation } from "@tollgate/db";

export { isUniqueViolation };
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

