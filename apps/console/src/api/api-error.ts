import { AdminError, type AdminErrorCode } from "@tollgate/admin";
import { ZodError, z } from "zod";

/**
 * A refusal of the management API, answered as `{"error":{"message","type","code","param","fieldErrors"}}`
 * (the gateway's envelope, plus the field errors a form or a script can act on).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fieldErrors: Record<string, string[]> | null;

  constructor(status: number, code: string, message: string, fieldErrors: Record<string, string[]> | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
  }
}

const adminStatuses: Record<AdminErrorCode, number> = { invalid_input: 400, not_found: 404, forbidden: 403 };

function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 409) return "conflict_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** The answer to any error: the API's own, an admin operation's refusal (same message as console and CLI), bad input, or an internal error (never its text). */
export function errorResponse(error: unknown): { status: number; body: { error: Record<string, unknown> } } {
  let refusal: ApiError;
  if (error instanceof ApiError) refusal = error;
  else if (error instanceof AdminError) refusal = new ApiError(adminStatuses[error.code], error.code, error.message, error.fieldErrors);
  else if (error instanceof ZodError) {
    const fieldErrors = z.flattenError(error).fieldErrors as Record<string, string[]>;
    refusal = new ApiError(400, "invalid_input", "Some fields are not valid", fieldErrors);
  } else refusal = new ApiError(500, "internal_error", "Internal error");
  const param = refusal.fieldErrors ? (Object.keys(refusal.fieldErrors)[0] ?? null) : null;
  return {
    status: refusal.status,
    body: { error: { message: refusal.message, type: typeOf(refusal.status), code: refusal.code, param, fieldErrors: refusal.fieldErrors } },
  };
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...headers },
  });
}
