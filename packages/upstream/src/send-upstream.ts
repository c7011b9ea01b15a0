import { fetchUpstream, readUpstreamBytes } from "./fetch-upstream";
import { type AdapterChannel, type AuthorizeContext, ChannelCredentialError, type OutgoingRequest, type ProviderAdapter } from "./provider-adapter";
import type { MediaHttpRequest } from "./shared/media-parts";
import { scrubSecret } from "./shared/scrub-secret";
import { type MappedUpstreamError, upstreamAuthFailure } from "./shared/upstream-error";

/** A request an adapter built, as sent: JSON text, or a media upload's form or bytes (never authorized: no type that signs serves media). */
export type SendableRequest = Omit<OutgoingRequest, "body"> & { body?: MediaHttpRequest["body"] };

/** The most a token exchange may take, whatever signal it is given. */
const EXCHANGE_TIMEOUT_MS = 20_000;
/** The most a token endpoint's answer may weigh. */
const TOKEN_ANSWER_MAX_BYTES = 64 * 1024;

/**
 * The context `authorize` is given: fetch under fetchUpstream's rules (no redirect followed, so that a
 * signed assertion never reaches a host the token endpoint names), cancelled with the request's signal or
 * after EXCHANGE_TIMEOUT_MS, and the answer read whole up to TOKEN_ANSWER_MAX_BYTES (a token answer is a
 * few hundred bytes; a longer one is an error).
 */
function authorizeContext(signal: AbortSignal): AuthorizeContext {
  return {
    signal,
    async fetch(url, init) {
      const given = init.signal ?? signal;
      const combined = AbortSignal.any([AbortSignal.timeout(EXCHANGE_TIMEOUT_MS), given]);
      const response = await fetchUpstream(url, { method: init.method === "GET" ? "GET" : "POST", headers: init.headers, body: init.body, signal: combined });
      const bytes = await readUpstreamBytes(response, TOKEN_ANSWER_MAX_BYTES);
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: response.status, headers: response.headers });
    },
  };
}

/**
 * The one way a request an adapter built reaches its upstream: the adapter's `authorize` (SigV4, an access
 * token) when it has one, then fetchUpstream (no redirect followed). Every call site that sends an adapter's
 * request comes through here (the gateway's failover, the channel prober, the model list), so a type that
 * authorizes its requests is served by all of them. A credential the adapter cannot use throws
 * ChannelCredentialError (see credentialFailure); network errors and aborts, a token exchange's included,
 * are thrown as fetch throws them.
 */
export function sendUpstream(adapter: ProviderAdapter, channel: AdapterChannel, request: SendableRequest, signal: AbortSignal): Promise<Response> {
  // Most types sign nothing: their request goes out as built, with no promise of this function's own.
  if (!adapter.authorize) return fetchUpstream(request.url, { method: request.method, headers: request.headers, body: request.body, signal });
  return sendAuthorized(adapter, channel, request, signal);
}

/** A request of a type that signs or authorizes it (SigV4, an access token), sent once `authorize` has. */
async function sendAuthorized(adapter: ProviderAdapter, channel: AdapterChannel, request: SendableRequest, signal: AbortSignal): Promise<Response> {
  if (request.body !== undefined && typeof request.body !== "string") {
    throw new ChannelCredentialError("This channel type cannot sign an upload body.");
  }
  const sent = await adapter.authorize!({ ...request, body: request.body as string | undefined }, channel, authorizeContext(signal));
  return fetchUpstream(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, signal });
}

/**
 * A channel credential that could not be used (malformed, or refused by a token exchange), as the error
 * relayed: 502 upstream_auth_failed, the channel's fault (it is disabled until an admin fixes it), the key
 * scrubbed from the message in case a token endpoint quoted it.
 */
export function credentialFailure(error: ChannelCredentialError, channel?: Pick<AdapterChannel, "apiKey">): MappedUpstreamError {
  const message = `The channel's credentials cannot be used: ${error.message}`;
  return upstreamAuthFailure(0, channel ? scrubSecret(message, channel.apiKey) : message);
}
