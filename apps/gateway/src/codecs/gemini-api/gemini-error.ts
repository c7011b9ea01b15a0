import type { GeminiMethod } from "@tollgate/upstream";
import type { GatewayError } from "../../errors";

/** HTTP status -> google.rpc.Code name, as Google's APIs pair them (https://cloud.google.com/apis/design/errors). */
const googleStatusNames: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  413: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  402: "RESOURCE_EXHAUSTED",
  429: "RESOURCE_EXHAUSTED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  501: "UNIMPLEMENTED",
  409: "ABORTED",
  499: "CANCELLED",
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export function googleStatusFor(status: number): string {
  return googleStatusNames[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

/** Google's error envelope (google.rpc.Status as JSON). */
export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: Record<string, unknown>[] };
}

function errorInfo(reason: string): Record<string, unknown> {
  return { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } };
}

/**
 * A GatewayError as Google answers it. A key that is no key is what Google answers for one (400
 * INVALID_ARGUMENT "API key not valid", reason API_KEY_INVALID), and a call without a key what Google
 * answers for an unregistered caller (403 PERMISSION_DENIED), so that Google's clients show their own
 * messages; every other error keeps its status with the matching google.rpc code name.
 */
export function googleError(error: GatewayError): { status: number; body: GoogleErrorBody } {
  if (error.code === "invalid_api_key") {
    const message = "API key not valid. Please pass a valid API key.";
    return { status: 400, body: { error: { code: 400, message, status: "INVALID_ARGUMENT", details: [errorInfo("API_KEY_INVALID")] } } };
  }
  if (error.code === "missing_api_key") {
    const message = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
    return { status: 403, body: { error: { code: 403, message, status: "PERMISSION_DENIED" } } };
  }
  return { status: error.status, body: { error: { code: error.status, message: error.message, status: googleStatusFor(error.status) } } };
}

/** A complete error Response in Google's shape. */
export function geminiErrorResponse(error: GatewayError, headers: Record<string, string>): Response {
  const { status, body } = googleError(error);
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...error.headers, ...headers } });
}

/** The same error as the last event of a stream that already answered 200 (Google ends such a stream with it). */
export function geminiErrorEvent(status: number, message: string): string {
  return JSON.stringify({ error: { code: status, message, status: googleStatusFor(status) } });
}

/**
 * What every Gemini API codec has in common: its endpoint name for logs and metrics (`gemini.<method>`),
 * names checked by OpenAI's rules, the model read from the path (`models/{model}:method`), and errors in
 * Google's shape.
 */
export function geminiCodecBasics(method: GeminiMethod) {
  return { endpoint: `gemini.${method}`, identifiers: "openai", modelParam: "model", errorResponse: geminiErrorResponse } as const;
}
