import type { AdapterChannel } from "../provider-adapter";
import { scrubSecret } from "../shared/scrub-secret";
import { type ErrorClass, errorClassesByType, type MappedUpstreamError, relayedUpstreamError, upstreamAuthFailure } from "../shared/upstream-error";

/** Anthropic error types (https://docs.anthropic.com/en/api/errors) -> OpenAI-style type and code. */
const errorClasses = errorClassesByType({
  invalid_request_error: {
    invalid_request_error: null,
    // Anthropic answers 404 on /v1/messages only for an unknown model.
    not_found_error: "model_not_found",
    request_too_large: "request_too_large",
  },
  rate_limit_error: { rate_limit_error: "rate_limit_exceeded" },
  server_error: { api_error: null, overloaded_error: "upstream_overloaded", timeout_error: "upstream_timeout" },
});

function errorClassForStatus(status: number): ErrorClass {
  if (status === 404) return errorClasses.get("not_found_error")!;
  if (status === 413) return errorClasses.get("request_too_large")!;
  if (status === 429) return errorClasses.get("rate_limit_error")!;
  if (status >= 500) return errorClasses.get("api_error")!;
  return errorClasses.get("invalid_request_error")!;
}

function parseErrorBody(bodyText: string): { type?: string; message?: string } {
  try {
    const parsed = JSON.parse(bodyText) as { error?: { type?: unknown; message?: unknown } };
    const error = parsed?.error;
    return {
      type: typeof error?.type === "string" ? error.type : undefined,
      message: typeof error?.message === "string" ? error.message : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * An Anthropic error answer -> our error. The status is relayed, except:
 * - 529 overloaded becomes 503, the status OpenAI clients know (and retry) for an overloaded upstream;
 * - 401/403, 402 billing and the 400 "credit balance is too low" mean the channel's key or account is at fault,
 *   not the caller's: they become 502 upstream_auth_failed, so that the caller is not told its own key or
 *   request is wrong (as openai-compatible does for 401/403); 401/403 and the 400 disable the channel and
 *   fail over, a 402 does neither (as before errors were classified: see channelFault below).
 * Messages are Anthropic's own, with the channel key scrubbed.
 */
export function mapAnthropicError(status: number, bodyText: string, channel: AdapterChannel): MappedUpstreamError {
  const parsed = parseErrorBody(bodyText);
  const accountProblem = status === 400 && /credit balance/i.test(parsed.message ?? "");
  if (status === 401 || status === 402 || status === 403 || accountProblem) {
    const failure = upstreamAuthFailure(
      status,
      `The upstream provider rejected the gateway's credentials or account (status ${status}${parsed.type ? `, ${parsed.type}` : ""}).`,
    );
    return status === 402 ? { ...failure, channelFault: false } : failure;
  }
  const relayedStatus = status === 529 ? 503 : status >= 400 && status <= 599 ? status : 502;
  const errorClass = (parsed.type ? errorClasses.get(parsed.type) : undefined) ?? errorClassForStatus(relayedStatus);
  let message = parsed.message ?? `The upstream provider answered with status ${status}.`;
  if (parsed.message === undefined && bodyText.trim() !== "" && !bodyText.trim().startsWith("{")) {
    message = `${message} ${bodyText.trim().slice(0, 200)}`;
  }
  return relayedUpstreamError(status, {
    status: relayedStatus,
    message: scrubSecret(message, channel.apiKey),
    type: errorClass.type,
    code: errorClass.code,
    param: null,
  });
}
