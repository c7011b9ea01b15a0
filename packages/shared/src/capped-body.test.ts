import { describe, expect, test } from "bun:test";
import { declaresTooLarge, withCappedBody } from "./capped-body";

class TooLarge extends Error {}
class TooSlow extends Error {}
const cap = (maxBytes: number, timeoutMs = 60_000) => ({ maxBytes, timeoutMs, tooLarge: () => new TooLarge(), tooSlow: () => new TooSlow() });

/** A chunked body of `chunks` chunks of `size` bytes, counting how many the reader pulled. */
function chunkedRequest(chunks: number, size: number) {
  const pulled = { chunks: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled.chunks === chunks) return controller.close();
      pulled.chunks++;
      controller.enqueue(new Uint8Array(size).fill(0x20));
    },
  });
  return { request: new Request("http://localhost/trpc/x", { method: "POST", body }), pulled };
}

describe("withCappedBody", () => {
  test("passes a body within the cap through whole", async () => {
    const { request } = chunkedRequest(4, 1000);
    expect((await withCappedBody(request, cap(4000)).arrayBuffer()).byteLength).toBe(4000);
  });

  test("fails the read with tooLarge as soon as the bytes pass the cap, without reading the rest", async () => {
    const { request, pulled } = chunkedRequest(1000, 1024);
    const failure = await withCappedBody(request, cap(10 * 1024)).text().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(TooLarge);
    // The source is cancelled at the 11th chunk (a stream may pull a little ahead, never the whole body).
    expect(pulled.chunks).toBeLessThan(20);
  });

  test("fails the read with tooSlow when the body does not end by the deadline", async () => {
    const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const request = new Request("http://localhost/trpc/x", { method: "POST", body: never });
    const failure = await withCappedBody(request, cap(1024, 20)).text().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(TooSlow);
  });

  test("leaves GET requests and requests without a body as they are", () => {
    const get = new Request("http://localhost/trpc/x");
    expect(withCappedBody(get, cap(1))).toBe(get);
  });
});

describe("declaresTooLarge", () => {
  test("is true for a Content-Length over the cap or one that is not a number", () => {
    const withLength = (length: string) => new Request("http://localhost/", { method: "POST", headers: { "content-length": length } });
    expect(declaresTooLarge(withLength("1048577"), 1024 * 1024)).toBe(true);
    expect(declaresTooLarge(withLength("1048576"), 1024 * 1024)).toBe(false);
    expect(declaresTooLarge(withLength("lots"), 1024 * 1024)).toBe(true);
    expect(declaresTooLarge(new Request("http://localhost/"), 1)).toBe(false);
  });
});
