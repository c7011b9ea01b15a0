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

/** Several fields refused at once, e.g. every limit of a token edit that exceeds what an administrator granted. */
export function fieldErrors(errors: Record<string, string[]>, code: "BAD_REQUEST" | "FORBIDDEN" = "BAD_REQUEST"): TRPCError {
  const cause = new FieldErrors(errors);
  return new TRPCError({ code, message: cause.message, cause });
}

export function notFound(what: string): TRPCError {
  return new TRPCError({ code: "NOT_FOUND", message: `${what} not found` });
}

