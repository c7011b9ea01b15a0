import type { AdapterChannel, TranslatedError } from "../provider-adapter";
import type { GeminiErrorBody } from "./gemini-types";

/** google.rpc status -> OpenAI error type and code. */
const STATUS_MAPPING: Record<string, { type: string; code: string }> = {
  INVALID_ARGUMENT: { type: "invalid_request_error", code: "invalid_argument" },
  FAILED_PRECONDITION: { type: "invalid_request_error", code: "failed_precondition" },
  OUT_OF_RANGE: { type: "invalid_request_error", code: "out_of_range" },
  NOT_FOUND: { type: "not_found_error", code: "not_found" },
  RESOURCE_EXHAUSTED: { type: "rate_limit_error", code: "rate_limit_exceeded" },
  INTERNAL: { type: "server_error", code: "server_error" },
  UNAVAILABLE: { type: "server_error", code: "service_unavailable" },
  DEADLINE_EXCEEDED: { type: "server_error", code: "timeout" },
};

function typeForStatus(status: number): string {
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Replaces every occurrence of the secret; for anything an upstream may echo back. */
export function scrubSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join("***") : text;
}

function detailsOfType(details: unknown, typeSuffix: string): Array<Record<string, unknown>> {
  if (!Array.isArray(details)) return [];
  return details.filter(
    (detail): detail is Record<string, unknown> =>
      !!detail && typeof detail === "object" && String((detail as Record<string, unknown>)["@type"] ?? "").endsWith(typeSuffix),
  );
}

/**
 * Gemini's `{"error":{"code","message","status","details"}}` -> our error, status relayed. A key Google
 * refuses (401/403, UNAUTHENTICATED, PERMISSION_DENIED, or the 400 INVALID_ARGUMENT with reason
 * API_KEY_INVALID that Google sends for a wrong key) is the operator's problem, not the caller's: it becomes
 * 502 upstream_auth_failed, as in the openai-compatible adapter, so that clients are not told their own key
 * is wrong. The field a BadRequest names becomes `param`.
 */
export function mapError(status: number, bodyText: string, channel: AdapterChannel): TranslatedError {
  let message = `The upstream provider answered with status ${status}.`;
  let rpcStatus: string | undefined;
  let param: string | null = null;
  let keyRejected = false;
  try {
    const error = (JSON.parse(bodyText) as GeminiErrorBody).error;
    if (error && typeof error === "object") {
      if (typeof error.message === "string" && error.message.trim() !== "") message = error.message.trim();
      if (typeof error.status === "string") rpcStatus = error.status;
      keyRejected = detailsOfType(error.details, "google.rpc.ErrorInfo").some((info) => info.reason === "API_KEY_INVALID");
      const violation = detailsOfType(error.details, "google.rpc.BadRequest")
        .flatMap((detail) => (Array.isArray(detail.fieldViolations) ? detail.fieldViolations : []))
        .find((entry) => entry && typeof entry.field === "string");
      if (violation) param = violation.field;
    }
  } catch {
    if (bodyText.trim()) message = `${message} ${bodyText.trim().slice(0, 200)}`;
  }

  if (keyRejected || status === 401 || status === 403 || rpcStatus === "UNAUTHENTICATED" || rpcStatus === "PERMISSION_DENIED") {
    return {
      status: 502,
      message: `The upstream provider rejected the gateway's credentials (status ${status}).`,
      type: "server_error",
      code: "upstream_auth_failed",
      param: null,
    };
  }
  const relayedStatus = status >= 400 && status <= 599 ? status : 502;
  const mapped = rpcStatus ? STATUS_MAPPING[rpcStatus] : undefined;
  return {
    status: relayedStatus,
    message: scrubSecret(message, channel.apiKey),
    type: mapped?.type ?? typeForStatus(relayedStatus),
    code: mapped?.code ?? rpcStatus?.toLowerCase() ?? null,
    param: param === null ? null : scrubSecret(param, channel.apiKey),
  };
}
