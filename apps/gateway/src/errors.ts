import type { TranslationError } from "@tollgate/upstream";

/** The OpenAI error envelope every /v1 error is returned in. */
export interface ErrorEnvelope {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface GatewayErrorOptions {
  status: number;
  code: string | null;
  type?: string;
  param?: string | null;
  cause?: unknown;
  headers?: Record<string, string>;
}

/** Longest part of a client's value quoted back in an error message. */
export const CLIENT_VALUE_ECHO_LENGTH = 64;
/** Longest error message sent, whatever it quotes (an upstream's message, a translation error's detail). */
export const MAX_ERROR_MESSAGE_LENGTH = 1024;

const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A client's value as an error message may quote it: at most CLIENT_VALUE_ECHO_LENGTH characters, with an
 * ellipsis when cut, control characters written as \u escapes. A client that sends an 8 MB model name gets
 * its first 64 characters back, not 8 MB.
 */
export function clipClientValue(value: string): string {
  const cut = value.length > CLIENT_VALUE_ECHO_LENGTH;
  const shown = (cut ? value.slice(0, CLIENT_VALUE_ECHO_LENGTH) : value)
    .toWellFormed()
    .replace(controlCharacters, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return cut ? `${shown}…` : shown;
}

function boundedMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_LENGTH ? `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH).toWellFormed()}…` : message;
}

function defaultType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export class GatewayError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly type: string;
  readonly param: string | null;
  readonly headers: Record<string, string> | undefined;

  constructor(message: string, options: GatewayErrorOptions) {
    super(boundedMessage(message), { cause: options.cause });
    this.status = options.status;
    this.code = options.code;
    this.type = options.type ?? defaultType(options.status);
    this.param = options.param ?? null;
    this.headers = options.headers;
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export function errorResponse(error: GatewayError, extraHeaders?: Record<string, string>): Response {
  return new Response(JSON.stringify(error.toEnvelope()), {
    status: error.status,
    headers: { "content-type": "application/json", ...error.headers, ...extraHeaders },
  });
}

/** Whose limit refused a call: the API key's own, or its owner's (an administrator's limit on every key of the account). */
export type LimitScope = "token" | "user" | "team";

/** How refusals name each scope, so that a client knows whom to ask. */
export const scopeNames: Record<LimitScope, string> = {
  token: "this API key",
  user: "your account (an administrator's limit on all of its API keys)",
  team: "this API key's team (a limit on all of the team's API keys together)",
};

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export const errors = {
  missingKey: () =>
    new GatewayError(
      "You didn't provide an API key. Send it in the Authorization header as 'Bearer sk-...'.",
      { status: 401, code: "missing_api_key" },
    ),
  invalidKey: () =>
    new GatewayError("Incorrect API key provided. Check the key you copied from the console.", {
      status: 401,
      code: "invalid_api_key",
    }),
  /**
   * The client's address presented too many invalid keys in the last minute (INVALID_KEYS_PER_MINUTE): its
   * keys are not looked up until the minute is over.
   */
  tooManyInvalidKeys: (retryAfterMs: number) => {
    const seconds = Math.min(60, Math.max(1, Math.ceil(retryAfterMs / 1000)));
    return new GatewayError(`Too many requests with an invalid API key from your address. Retry after ${seconds} s.`, {
      status: 429,
      code: "too_many_invalid_keys",
      headers: { "retry-after": String(seconds) },
    });
  },
  disabledKey: () =>
    new GatewayError("This API key is disabled. Enable it in the console.", { status: 401, code: "token_disabled" }),
  expiredKey: () =>
    new GatewayError("This API key has expired. Create a new one or extend its expiry in the console.", {
      status: 401,
      code: "token_expired",
    }),
  disabledUser: () =>
    new GatewayError("The account that owns this API key is disabled.", { status: 401, code: "user_disabled" }),
  disabledTeam: () =>
    new GatewayError("The team this API key belongs to is disabled.", { status: 401, code: "team_disabled" }),
  /** `scope` says whose list refused: the key's own, or the one an administrator set on its owner's account. */
  ipNotAllowed: (scope: LimitScope = "token") =>
    new GatewayError(`Requests from your IP address are not allowed for ${scopeNames[scope]}.`, {
      status: 403,
      code: "ip_not_allowed",
    }),
  modelNotAllowed: (model: string, scope: LimitScope = "token") =>
    new GatewayError(`${capitalised(scopeNames[scope])} is not allowed to use the model '${clipClientValue(model)}'.`, {
      status: 403,
      code: "model_not_allowed",
      param: "model",
    }),
  modelNotFound: (model: string) =>
    new GatewayError(`The model '${clipClientValue(model)}' does not exist or you do not have access to it.`, {
      status: 404,
      code: "model_not_found",
      param: "model",
    }),
  noChannel: (model: string) =>
    new GatewayError(`No upstream is currently available for the model '${clipClientValue(model)}'. Try again later.`, {
      status: 503,
      code: "no_available_channel",
      type: "server_error",
    }),
  invalidJson: (detail: string) =>
    new GatewayError(`We could not parse the JSON body of your request: ${detail}`, {
      status: 400,
      code: "invalid_json",
    }),
  missingParameter: (param: string) =>
    new GatewayError(`Missing required parameter: '${param}'.`, { status: 400, code: "missing_required_parameter", param }),
  /**
   * The one mapping of a TranslationError (what a translator or an adapter cannot express): 400 with the
   * error's own code (`invalid_value`, or `unsupported_parameter` for a valid value this upstream cannot
   * carry) and the parameter it names. Every stage that meets one answers with this.
   */
  untranslatable: (error: TranslationError) => new GatewayError(error.message, { status: 400, code: error.code, param: error.param }),
  invalidParameter: (param: string, message: string) =>
    new GatewayError(message, { status: 400, code: "invalid_value", param }),
  /** A name or id the gateway refuses to carry (see validate-identifiers.ts); quotes only a prefix of it. */
  invalidIdentifier: (param: string, problem: string, value: string) =>
    new GatewayError(`'${param}' ${problem}: '${clipClientValue(value)}'.`, { status: 400, code: "invalid_value", param }),
  bodyTooLarge: (limit: number) =>
    new GatewayError(`Request body exceeds the limit of ${limit} bytes.`, {
      status: 413,
      code: "request_too_large",
    }),
  /** The body did not arrive within BODY_READ_TIMEOUT_MS; the connection is closed after this answer. */
  bodyReadTimeout: (timeoutMs: number) =>
    new GatewayError(`The request body was not received within ${timeoutMs} ms.`, {
      status: 408,
      code: "request_timeout",
      headers: { connection: "close" },
    }),
  /** The connection ended (or broke) before the whole body arrived. */
  bodyIncomplete: () =>
    new GatewayError("The request body ended before it was complete.", { status: 400, code: "incomplete_body" }),
  insufficientQuota: (reason: string) =>
    new GatewayError(reason, { status: 429, code: "insufficient_quota", type: "insufficient_quota" }),
  /**
   * A path the gateway does not serve: under /v1, said plainly with the endpoints it does serve (a client
   * that calls an endpoint this gateway lacks learns so, rather than that its base address is wrong).
   */
  notFound: (path: string, method = "GET", served: readonly string[] = []) =>
    new GatewayError(
      path.startsWith("/v1/") || path === "/v1"
        ? `This gateway does not serve ${clipClientValue(method)} ${clipClientValue(path)}. It serves: ${served.join(", ")}.`
        : `Invalid URL (${clipClientValue(path)}). The API base address must include /v1, e.g. https://host/v1/chat/completions.`,
      { status: 404, code: "unknown_url" },
    ),
  methodNotAllowed: (method: string, path: string, allowed: string[] = []) =>
    new GatewayError(
      `Method ${clipClientValue(method)} is not allowed on ${clipClientValue(path)}.${allowed.length > 0 ? ` Use ${allowed.join(" or ")}.` : ""}`,
      { status: 405, code: "method_not_allowed", ...(allowed.length > 0 ? { headers: { allow: allowed.join(", ") } } : {}) },
    ),
  /** No channel of the model has a type that speaks this endpoint (e.g. audio on an Anthropic channel). */
  unsupportedEndpoint: (model: string, endpoint: string) =>
    new GatewayError(`The model '${clipClientValue(model)}' is not served on ${endpoint} by any of its channels (their type does not offer it).`, {
      status: 400,
      code: "unsupported_endpoint",
      param: "model",
    }),
  upstreamUnreachable: () =>
    new GatewayError("The upstream provider could not be reached.", { status: 502, code: "upstream_unreachable" }),
  /** The upstream answered 3xx: never followed (the Location, which may carry anything, is not quoted). */
  upstreamRedirect: (status: number) =>
    new GatewayError(`The upstream provider answered with a redirect (HTTP ${status}), which the gateway does not follow.`, {
      status: 502,
      code: "upstream_redirect",
    }),
  /** The upstream's answer went past UPSTREAM_MAX_BODY_BYTES (or an event past UPSTREAM_MAX_EVENT_BYTES). */
  upstreamResponseTooLarge: (limitBytes: number) =>
    new GatewayError(`The upstream provider's answer exceeded the gateway's limit of ${limitBytes} bytes.`, {
      status: 502,
      code: "upstream_response_too_large",
    }),
  upstreamTimeout: () =>
    new GatewayError("The upstream provider did not answer in time.", { status: 504, code: "upstream_timeout" }),
  internal: () => new GatewayError("The gateway hit an internal error.", { status: 500, code: "internal_error" }),
  /** The database cannot be reached for something this request needs (a key not in cache, a new quota lease). */
  databaseUnavailable: (message: string, cause?: unknown) =>
    new GatewayError(message, {
      status: 503,
      code: "database_unavailable",
      type: "server_error",
      cause,
      headers: { "retry-after": "5" },
    }),
};
