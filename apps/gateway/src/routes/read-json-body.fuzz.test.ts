import { describe, expect, test } from "bun:test";
import { deepChain, type Fuzz, forEachCaseAsync } from "@tollgate/shared/fuzz-support";
import { GatewayError } from "../errors";
import { readJsonBody } from "./read-json-body";

const limits = { maxBytes: 64 * 1024, timeoutMs: 10_000 };
const encoder = new TextEncoder();

/** Bytes a client might send as a JSON body: valid, truncated, mutated, binary, deep, over the limit. */
function randomBodyBytes(fuzz: Fuzz): Uint8Array<ArrayBuffer> {
  switch (fuzz.int(8)) {
    case 0:
      return encoder.encode(JSON.stringify(fuzz.json(4, 5)));
    case 1: {
      const text = JSON.stringify({ model: "m", messages: [{ role: "user", content: fuzz.string(40) }], extra: fuzz.json(3) });
      return encoder.encode(text.slice(0, fuzz.int(text.length + 1)));
    }
    case 2:
      return Uint8Array.from({ length: fuzz.int(300) }, () => fuzz.int(256));
    case 3: {
      const depth = fuzz.pick([10, 1_000, 20_000]);
      return encoder.encode(JSON.stringify({ model: "m", deep: deepChain(depth, fuzz.chance(0.5) ? "object" : "array") }));
    }
    case 4:
      return encoder.encode(fuzz.pick(["", " ", "\ufeff{}", "null", "[]", "1", '"x"', '{"a":1}{"b":2}', '{"__proto__":{"polluted":1}}', "{\"a\":\"\\ud800\"}", "{\"a\":1e999}"]));
    case 5: {
      const bytes = encoder.encode(JSON.stringify({ model: "m", input: fuzz.string(60) }));
      for (let flips = 1 + fuzz.int(4); flips > 0; flips--) bytes[fuzz.int(bytes.length)] = fuzz.int(256);
      return bytes;
    }
    case 6:
      return encoder.encode(`{"model":"m","input":"${"x".repeat(limits.maxBytes - 20 + fuzz.int(40))}"}`);
    default:
      return encoder.encode(JSON.stringify({ model: "m", messages: Array.from({ length: fuzz.int(500) }, () => ({ role: "user", content: "x" })) }));
  }
}

/** The bytes as a request: with a Content-Length, or chunked in random pieces (no Content-Length). */
function requestOf(fuzz: Fuzz, bytes: Uint8Array<ArrayBuffer>): Request {
  if (fuzz.chance(0.5)) return new Request("http://gateway.test/v1/chat/completions", { method: "POST", body: bytes, headers: { "content-length": String(bytes.byteLength) } });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let offset = 0;
      while (offset < bytes.byteLength) {
        const size = 1 + fuzz.int(Math.max(1, bytes.byteLength / 3));
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      }
      controller.close();
    },
  });
  return new Request("http://gateway.test/v1/chat/completions", { method: "POST", body });
}

describe("readJsonBody under fuzzing", () => {
  test("2,000 random, truncated, binary, deep and oversized bodies are parsed to an object or refused with a GatewayError", async () => {
    const statuses = new Map<number | "ok", number>();
    await forEachCaseAsync(2_000, 40_000, async (fuzz) => {
      const bytes = randomBodyBytes(fuzz);
      let status: number | "ok";
      try {
        const body = await readJsonBody(requestOf(fuzz, bytes), limits);
        expect(typeof body.value).toBe("object");
        expect(Array.isArray(body.value)).toBe(false);
        expect(body.bytes).toBe(bytes.byteLength);
        expect(Object.getPrototypeOf(body.value)).toBe(Object.prototype);
        status = "ok";
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        expect([400, 413]).toContain(error.status);
        expect(error.message.length).toBeLessThan(2_000);
        status = error.status;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    expect(statuses.get("ok")).toBeGreaterThan(100);
    expect(statuses.get(400)).toBeGreaterThan(100);
    expect(statuses.get(413)).toBeGreaterThan(10);
  });
});
