import type { AnthropicErrorBody } from "@tollgate/upstream";

/** HTTP status -> Anthropic error type, per https://docs.anthropic.com/en/api/errors. */
const anthropicErrorTypes: Readonly<Record<number, string>> = {
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  504: "timeout_error",
  529: "overloaded_error",
};

export function anthropicErrorTypeFor(status: number): string {
  // Anthropic uses invalid_request_error for 4xx statuses it does not list.
  return anthropicErrorTypes[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
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
