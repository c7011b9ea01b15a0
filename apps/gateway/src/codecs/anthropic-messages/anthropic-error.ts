import type { AnthropicErrorBody } from "@tollgate/upstream";

/** HTTP status -> Anthropic error type, per https://docs.anthropic.com/en/api/errors. */
export function anthropicErrorTypeFor(status: number): string {
  switch (status) {
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      // Anthropic uses invalid_request_error for 4xx statuses it does not list.
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/** Anthropic's error body, `{"type":"error","error":{"type","message"}}`, for a status and message. */
export function anthropicErrorBody(status: number, message: string): AnthropicErrorBody {
  return { type: "error", error: { type: anthropicErrorTypeFor(status), message } };
}

/** The same error as an SSE `error` event, for a failure after the stream has begun (the status is already 200). */
export function anthropicErrorEvent(status: number, message: string): { event: "error"; data: string } {
  return { event: "error", data: JSON.stringify(anthropicErrorBody(status, message)) };
}

/** A complete error Response in Anthropic's format. */
export function anthropicErrorResponse(status: number, message: string, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(anthropicErrorBody(status, message)), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
