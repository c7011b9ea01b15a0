/**
 * Every call to an upstream goes through here, because an upstream is not trusted either: it may redirect
 * (a channel key in `authorization` or `x-api-key` must never reach the host it names), answer with a body
 * that never ends, or a small gzip body that inflates without bound (fetch decodes content-encoding as it
 * reads, so the caps below count decoded bytes, read a chunk at a time, never the whole body first).
 */
import { concatBytes } from "@tollgate/shared";

/** The default of UPSTREAM_MAX_BODY_BYTES: the most a whole (non-streamed) upstream answer may weigh. */
export const DEFAULT_UPSTREAM_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** The default of UPSTREAM_MAX_EVENT_BYTES: the most one server-sent event of an upstream stream may weigh. */
export const DEFAULT_UPSTREAM_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** What is read of an upstream's error answer for its message; the rest is dropped unread. */
export const UPSTREAM_ERROR_BODY_BYTES = 64 * 1024;

/** The upstream answered 3xx: not followed, and its Location (which may carry anything) is never quoted. */
export class UpstreamRedirectError extends Error {
  constructor(readonly status: number) {
    super(`The upstream answered with a redirect (HTTP ${status}); redirects from an upstream are not followed.`);
    this.name = "UpstreamRedirectError";
  }
}

/** An upstream answer, or one event of its stream, went past its byte cap; the read was stopped there. */
export class UpstreamResponseTooLargeError extends Error {
  constructor(
    readonly limitBytes: number,
    what: "answer" | "stream event" = "answer",
  ) {
    super(`The upstream's ${what} exceeded the gateway's limit of ${limitBytes} bytes.`);
    this.name = "UpstreamResponseTooLargeError";
  }
}

export interface UpstreamFetchInit {
  method: "GET" | "POST";
  headers: Record<string, string> | Headers;
  body?: BodyInit | null;
  /** Aborts the call and any read of its body (the client left, a deadline passed). */
  signal: AbortSignal;
}

/** Drops a body that will not be read, so that its connection is freed without reading it. */
export function discardBody(response: Response): void {
  if (response.body && !response.bodyUsed) response.body.cancel().catch(() => {});
}

/**
 * fetch, with redirects never followed: a 3xx is thrown as UpstreamRedirectError (its body discarded), so
 * the caller treats it as the upstream's failure. Network errors and aborts are thrown as fetch throws them.
 */
export async function fetchUpstream(url: string, init: UpstreamFetchInit): Promise<Response> {
  const response = await fetch(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal, redirect: "manual" });
  if ((response.status >= 300 && response.status <= 399) || response.type === "opaqueredirect") {
    discardBody(response);
    throw new UpstreamRedirectError(response.status);
  }
  return response;
}

/**
 * A whole answer's bytes, read a chunk at a time: past `maxBytes` the read is cancelled and
 * UpstreamResponseTooLargeError thrown, so that what is held never passes the cap by more than a chunk.
 * An abort of the fetch's signal ends the read with the abort's error.
 */
export async function readUpstreamBytes(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new UpstreamResponseTooLargeError(maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  }
  return concatBytes(chunks, total);
}

/**
 * Whether the whole body is known to fit the cap before it is read: a declared length within it, and no
 * content-encoding (decoded bytes could outgrow a small declared length: a gzip bomb). The HTTP client reads
 * no more than the declared length, so such a body can be read natively, without a JavaScript loop.
 */
function declaredWithin(response: Response, maxBytes: number): boolean {
  const encoding = response.headers.get("content-encoding");
  if (encoding !== null && encoding.toLowerCase() !== "identity") return false;
  const declared = response.headers.get("content-length");
  if (declared === null || !/^\d{1,15}$/.test(declared)) return false;
  return Number(declared) <= maxBytes;
}

/** A whole answer as text (UTF-8), under the same cap as readUpstreamBytes. */
export function readUpstreamText(response: Response, maxBytes: number): Promise<string> {
  // The common case (JSON with its length declared, unencoded) costs what response.text() costs.
  if (declaredWithin(response, maxBytes)) return response.text();
  return readUpstreamBytes(response, maxBytes).then((bytes) => new TextDecoder().decode(bytes));
}

/**
 * An error answer's text for its message: at most `maxBytes` (the rest is dropped unread), and whatever
 * arrived when the read fails or is aborted. Never throws: an error body is only ever a message.
 */
export async function readUpstreamErrorText(response: Response, maxBytes = UPSTREAM_ERROR_BODY_BYTES): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const kept = value.byteLength > maxBytes - total ? value.subarray(0, maxBytes - total) : value;
      chunks.push(kept);
      total += kept.byteLength;
    }
  } catch {
    // What arrived is the message.
  }
  reader.cancel().catch(() => {});
  return new TextDecoder().decode(concatBytes(chunks, total));
}
