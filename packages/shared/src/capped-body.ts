/** Bodies of everything but /v1 (the console's tRPC calls, the admin bridge): 1 MiB is far above any form. */
export const NON_API_MAX_BODY_BYTES = 1024 * 1024;

export interface BodyCap {
  maxBytes: number;
  /** Time allowed from the first read to the body's end (a body trickled a byte at a time is never idle). */
  timeoutMs: number;
  /** What the body's reader is failed with once more than maxBytes arrived. */
  tooLarge: () => unknown;
  /** What the body's reader is failed with when the deadline passes first. */
  tooSlow: () => unknown;
}

/** Whether the declared Content-Length alone is over the cap: answered before a byte is read. */
export function declaresTooLarge(request: Request, maxBytes: number): boolean {
  const declared = request.headers.get("content-length");
  return declared !== null && !(Number(declared) <= maxBytes);
}

/**
 * A copy of `request` whose body stream counts the bytes as they are read and fails with `cap.tooLarge()`
 * as soon as they pass the cap (a chunked body declares no length), or with `cap.tooSlow()` at the
 * deadline; the original body is cancelled then, so no more of it is buffered. Reading starts the clock.
 */
export function withCappedBody(request: Request, cap: BodyCap): Request {
  const source = request.body;
  if (!source || request.method === "GET" || request.method === "HEAD") return request;
  const reader = source.getReader();
  let received = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const finish = () => {
    finished = true;
    clearTimeout(timer);
  };
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, reason: unknown) => {
    if (finished) return;
    finish();
    reader.cancel().catch(() => {});
    controller.error(reason);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (timer === undefined && !finished) timer = setTimeout(() => fail(controller, cap.tooSlow()), cap.timeoutMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!finished) {
          finish();
          controller.error(error);
        }
        return;
      }
      if (finished) return;
      if (chunk.done) {
        finish();
        controller.close();
        return;
      }
      received += chunk.value.byteLength;
      if (received > cap.maxBytes) {
        fail(controller, cap.tooLarge());
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}
