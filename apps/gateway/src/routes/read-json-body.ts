import { declaresTooLarge, readUpTo } from "@tollgate/shared";
import { errors, GatewayError } from "../errors";

export interface JsonBody {
  text: string;
  value: Record<string, unknown>;
  bytes: number;
}

export interface BodyLimits {
  /** Largest body accepted; a larger one is refused with 413 (MAX_BODY_BYTES). */
  maxBytes: number;
  /** Time allowed to receive the whole body; a slower one is refused with 408 (BODY_READ_TIMEOUT_MS). */
  timeoutMs: number;
}

const empty = new Uint8Array(new ArrayBuffer(0));

/**
 * Reads a request body within `limits`: 413 before reading anything when Content-Length is over the limit,
 * 413 as soon as a chunked body passes it, 408 when the whole body has not arrived in time (a client
 * trickling a byte a second is never silent, so the server's idle timeout alone would not end it).
 */
export function readBody(request: Request, limits: BodyLimits): Promise<Uint8Array<ArrayBuffer>> {
  if (declaresTooLarge(request, limits.maxBytes)) throw errors.bodyTooLarge(limits.maxBytes);
  const declared = request.headers.get("content-length");
  if (declared === "0") return Promise.resolve(empty);
  // Without a Content-Length (chunked, or a Request built in a test) the stream is read up to the limit.
  const stream = declared === null ? request.body : null;
  if (declared === null && !stream) return Promise.resolve(empty);
  const reader = stream?.getReader();
  // With a Content-Length the framing bounds the body, and Bun's native read is the fastest.
  // Past the limit the chunked read stops: Bun discards the rest once the 413 is sent (bounded by the idle timeout).
  const reading = reader ? readUpTo(reader, limits.maxBytes, () => errors.bodyTooLarge(limits.maxBytes)) : request.bytes();
  // One promise settled by whichever comes first, the body or the deadline (no race of two, per request).
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reader?.cancel().catch(() => {});
      reject(errors.bodyReadTimeout(limits.timeoutMs));
    }, limits.timeoutMs);
    reading.then(
      (bytes) => {
        clearTimeout(timer);
        resolve(bytes);
      },
      (error: unknown) => {
        clearTimeout(timer);
        // The connection closed (or broke) before the body was complete.
        reject(error instanceof GatewayError ? error : errors.bodyIncomplete());
      },
    );
  });
}

/** Shared: a decode without `stream` keeps no state between calls. */
const utf8 = new TextDecoder();

/** Reads and parses a JSON object body, refusing it with 413/408 (see readBody) and 400 when malformed. */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<JsonBody> {
  const buffer = await readBody(request, limits);
  if (buffer.byteLength > limits.maxBytes) throw errors.bodyTooLarge(limits.maxBytes);
  if (buffer.byteLength === 0) throw errors.invalidJson("the body is empty");
  const text = utf8.decode(buffer);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw errors.invalidJson((error as Error).message);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw errors.invalidJson("expected a JSON object");
  return { text, value: value as Record<string, unknown>, bytes: buffer.byteLength };
}
