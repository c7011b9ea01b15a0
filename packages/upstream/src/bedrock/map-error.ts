import type { AdapterChannel } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { errorClassesByType, errorTypeForStatus, type MappedUpstreamError, relayedStatus, relayedUpstreamError, upstreamAuthFailure } from "../shared/upstream-error";

/**
 * Bedrock Runtime's errors (https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html and
 * each action's Errors): `{"message": ...}`, the type in the X-Amzn-ErrorType header and, from some
 * endpoints, in the body's `__type`; the status tells the classes apart where the type is not in the body.
 */
const errorClasses = errorClassesByType({
  invalid_request_error: { ValidationException: "invalid_request", ResourceNotFoundException: "model_not_found" },
  rate_limit_error: { ThrottlingException: "rate_limit_exceeded", ServiceQuotaExceededException: "rate_limit_exceeded" },
  server_error: {
    ModelNotReadyException: "model_not_ready",
    ModelTimeoutException: "upstream_timeout",
    ModelErrorException: "model_error",
    InternalServerException: "server_error",
    ServiceUnavailableException: "service_unavailable",
  },
});

const channelFaults = new Set(["AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException", "ExpiredTokenException", "IncompleteSignatureException", "MissingAuthenticationTokenException"]);

function typeByStatus(status: number): string | undefined {
  if (status === 408) return "ModelTimeoutException";
  if (status === 424) return "ModelErrorException";
  if (status === 429) return "ThrottlingException";
  if (status === 503) return "ServiceUnavailableException";
  if (status === 500) return "InternalServerException";
  return undefined;
}

function parseBody(bodyText: string): { type?: string; message?: string } {
  try {
    const parsed = JSON.parse(bodyText) as Record<string, unknown>;
    const message = parsed.message ?? parsed.Message;
    // `__type` may be namespaced ("com.amazon...#ThrottlingException") or carry a URL after a colon.
    const type = typeof parsed.__type === "string" ? parsed.__type.split("#").at(-1)!.split(":")[0] : undefined;
    return { type, message: typeof message === "string" ? message : undefined };
  } catch {
    return {};
  }
}

/**
 * A Bedrock error -> our error. 401/403 (a key or signature refused, access to the model not granted) and
 * the authentication exceptions are the channel's fault: 502 upstream_auth_failed, channel disabled.
 * Throttling (429, and a service quota's 400) and a model not ready (429) or failing (424, 408, 5xx) are
 * retryable on another channel; a ValidationException is the caller's (400, relayed).
 */
export function mapBedrockError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
  const parsed = parseBody(bodyText);
  const type = parsed.type ?? typeByStatus(status);
  if (status === 401 || status === 403 || (type !== undefined && channelFaults.has(type))) {
    return upstreamAuthFailure(status, `The upstream provider rejected the gateway's credentials or access to the model (status ${status}${type ? `, ${type}` : ""}).`);
  }
  let message = parsed.message ?? `The upstream provider answered with status ${status}.`;
  if (parsed.message === undefined && bodyText.trim() !== "" && !bodyText.trim().startsWith("{")) message = `${message} ${bodyText.trim().slice(0, 200)}`;
  const known = type ? errorClasses.get(type) : undefined;
  const quota = type === "ServiceQuotaExceededException";
  const mapped = relayedUpstreamError(quota ? 429 : status, {
    status: quota ? 429 : relayedStatus(status),
    message: scrubSecret(`${type && !message.includes(type) ? `${type}: ` : ""}${message}`, channel.apiKey),
    type: known?.type ?? errorTypeForStatus(relayedStatus(status)),
    code: known?.code ?? null,
    param: null,
  });
  // A model still loading, timing out or failing on this account may be ready elsewhere.
  return status === 408 || status === 424 ? { ...mapped, retryable: true } : mapped;
}
