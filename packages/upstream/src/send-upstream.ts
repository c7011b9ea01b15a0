import { fetchUpstream } from "./fetch-upstream";
import { type AdapterChannel, ChannelCredentialError, type OutgoingRequest, type ProviderAdapter } from "./provider-adapter";
import type { MediaHttpRequest } from "./shared/media-parts";
import { type MappedUpstreamError, upstreamAuthFailure } from "./shared/upstream-error";

/** A request an adapter built, as sent: JSON text, or a media upload's form or bytes (never authorized: no type that signs serves media). */
export type SendableRequest = Omit<OutgoingRequest, "body"> & { body?: MediaHttpRequest["body"] };

/**
 * The one way a request an adapter built reaches its upstream: the adapter's `authorize` (SigV4, an access
 * token) when it has one, then fetchUpstream (no redirect followed). A credential the adapter cannot use
 * throws ChannelCredentialError (see credentialFailure); network errors and aborts are thrown as fetch throws them.
 */
export async function sendUpstream(adapter: ProviderAdapter, channel: AdapterChannel, request: SendableRequest, signal: AbortSignal): Promise<Response> {
  let sent = request;
  if (adapter.authorize) {
    if (request.body !== undefined && typeof request.body !== "string") {
      throw new ChannelCredentialError("This channel type cannot sign an upload body.");
    }
    const context = {
      fetch: (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) =>
        fetchUpstream(url, { method: init.method === "GET" ? "GET" : "POST", headers: init.headers, body: init.body, signal: init.signal ?? signal }),
      signal,
    };
    sent = await adapter.authorize({ ...request, body: request.body as string | undefined }, channel, context);
  }
  return fetchUpstream(sent.url, { method: sent.method, headers: sent.headers, body: sent.body, signal });
}

/** A channel credential that could not be used, as the error relayed: 502 upstream_auth_failed, the channel's fault. */
export function credentialFailure(error: ChannelCredentialError): MappedUpstreamError {
  return upstreamAuthFailure(0, `The channel's credentials cannot be used: ${error.message}`);
}
