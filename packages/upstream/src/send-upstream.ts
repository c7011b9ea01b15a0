import { fetchUpstream, readUpstreamBytes } from "./fetch-upstream";
import type { AdapterChannel, AuthorizeContext, OutgoingRequest, ProviderAdapter, UpstreamAuthorizationError } from "./provider-adapter";
import type { MediaHttpRequest } from "./shared/media-parts";
import { scrubSecret } from "./shared/scrub-secret";
import { type MappedUpstreamError, upstreamAuthFailure } from "./shared/upstream-error";

/** A request an adapter built: JSON text, or a media upload (relayed as it came, for types without `authorize`). */
export type SendableRequest = OutgoingRequest | (Omit<OutgoingRequest, "body"> & { body: MediaHttpRequest["body"] });

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
function authorizeContext(signal: AbortSignal | undefined): AuthorizeContext {
  return {
    signal,
    async fetch(url, init) {
      const given = init.signal ?? signal;
      const timeout = AbortSignal.timeout(EXCHANGE_TIMEOUT_MS);
      const combined = given ? AbortSignal.any([timeout, given]) : timeout;
      const method = init.method === "GET" ? "GET" : "POST";
      const response = await fetchUpstream(url, { method, headers: init.headers, body: init.body, signal: combined });
      const bytes = await readUpstreamBytes(response, TOKEN_ANSWER_MAX_BYTES);
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: response.status, headers: response.headers });
    },
  };
}

/**
 * Sends a request an adapter built, through the adapter's `authorize` when it has one (a signature, an
 * access token), then fetchUpstream. Every call site that sends an adapter's request comes through here
 * (the gateway's failover, the channel prober, the model list), so a type that authorizes its requests is
 * served by all of them. `authorize` may throw UpstreamAuthorizationError (the channel's credentials are
 * refused: the caller treats it as the channel's fault); a network failure of a token exchange is thrown
 * as fetch throws it, like the request's own. A media upload is sent as built: a type with `authorize`
 * serves no media.
 */
export async function sendUpstream(adapter: ProviderAdapter, channel: AdapterChannel, request: SendableRequest, signal: AbortSignal): Promise<Response> {
  let outgoing: SendableRequest = request;
  if (adapter.authorize && (request.body === undefined || typeof request.body === "string")) {
    outgoing = await adapter.authorize(request as OutgoingRequest, channel, authorizeContext(signal));
  }
  return fetchUpstream(outgoing.url, { method: outgoing.method, headers: outgoing.headers, body: outgoing.body, signal });
}

/**
 * An authorization failure as the error relayed: 502 upstream_auth_failed, the channel's fault (it is
 * disabled until an admin fixes its credentials), the credentials scrubbed from the message in case an
 * upstream quoted them.
 */
export function upstreamAuthorizationFailure(error: UpstreamAuthorizationError, channel: AdapterChannel): MappedUpstreamError {
  return upstreamAuthFailure(401, scrubSecret(error.message, channel.apiKey));
}
