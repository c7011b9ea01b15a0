/**
 * An upstream's error answer as the gateway relays it: the envelope's fields, the status the client sees,
 * and what failover does with it. Every adapter's mapError returns one; failover reads `channelFault` and
 * `retryable` (never a status list), the client sees `status` and `{message, type, param, code}`.
 */
export interface MappedUpstreamError {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
  /** Worth trying another channel (the upstream failed, not the request): a 429 or a 5xx. */
  retryable: boolean;
  /** The channel's key or account was refused: the channel is disabled and another one is tried. */
  channelFault: boolean;
}

/** The OpenAI type and code an upstream's own error name becomes. */
export interface ErrorClass {
  type: string;
  code: string | null;
}

/**
 * An adapter's table of its upstream's error names (Anthropic's error types, Bedrock's exceptions, google.rpc
 * statuses), written by the OpenAI type they become, each name with its code: name -> {type, code}. A Map,
 * so that a name from an upstream's body never finds an Object.prototype member.
 */
export function errorClassesByType(byType: Record<string, Record<string, string | null>>): ReadonlyMap<string, ErrorClass> {
  const classes = new Map<string, ErrorClass>();
  for (const [type, codes] of Object.entries(byType)) {
    for (const [name, code] of Object.entries(codes)) classes.set(name, { type, code });
  }
  return classes;
}

/** The OpenAI error type of a relayed status. */
export function errorTypeForStatus(status: number): string {
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** The status an upstream error is relayed with: its own when it is an error status, 502 otherwise. */
export function relayedStatus(status: number): number {
  return status >= 400 && status <= 599 ? status : 502;
}

/** An upstream error relayed to the client; retryable when the upstream's own status says it failed (429, 5xx). */
export function relayedUpstreamError(
  upstreamStatus: number,
  fields: { status?: number; message: string; type: string; code: string | null; param: string | null },
): MappedUpstreamError {
  return {
    status: fields.status ?? relayedStatus(upstreamStatus),
    message: fields.message,
    type: fields.type,
    code: fields.code,
    param: fields.param,
    retryable: upstreamStatus === 429 || upstreamStatus >= 500,
    channelFault: false,
  };
}

/**
 * The upstream refused the channel's key (401/403, or the way a provider says so in a 400): that is the
 * operator's problem, not the caller's, so the caller sees 502 upstream_auth_failed (an OpenAI client would
 * otherwise tell its user that their own key is wrong), and the channel is at fault.
 */
export function upstreamAuthFailure(
  upstreamStatus: number,
  message = `The upstream provider rejected the gateway's credentials (status ${upstreamStatus}).`,
): MappedUpstreamError {
  return { status: 502, message, type: "server_error", code: "upstream_auth_failed", param: null, retryable: false, channelFault: true };
}
