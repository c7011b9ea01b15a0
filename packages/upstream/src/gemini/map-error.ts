import type { AdapterChannel } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { errorClassesByType, errorTypeForStatus, type MappedUpstreamError, relayedStatus, relayedUpstreamError, upstreamAuthFailure } from "../shared/upstream-error";
import type { GeminiErrorBody } from "./gemini-types";

/** google.rpc status -> OpenAI error type and code. */
const errorClasses = errorClassesByType({
  invalid_request_error: { INVALID_ARGUMENT: "invalid_argument", FAILED_PRECONDITION: "failed_precondition", OUT_OF_RANGE: "out_of_range" },
  not_found_error: { NOT_FOUND: "not_found" },
  rate_limit_error: { RESOURCE_EXHAUSTED: "rate_limit_exceeded" },
  server_error: { INTERNAL: "server_error", UNAVAILABLE: "service_unavailable", DEADLINE_EXCEEDED: "timeout" },
});

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
 * 502 upstream_auth_failed and the channel is at fault, as in the openai-compatible adapter, so that clients
 * are not told their own key is wrong. The field a BadRequest names becomes `param`.
 */
export function mapError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
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
    return upstreamAuthFailure(status);
  }
  const mapped = rpcStatus ? errorClasses.get(rpcStatus) : undefined;
  return relayedUpstreamError(status, {
    message: scrubSecret(message, channel.apiKey),
    type: mapped?.type ?? errorTypeForStatus(relayedStatus(status)),
    code: mapped?.code ?? rpcStatus?.toLowerCase() ?? null,
    param: param === null ? null : scrubSecret(param, channel.apiKey),
  });
}
