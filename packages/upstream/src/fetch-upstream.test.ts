import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HostileUpstream, LOCATION_SECRET, startFakeHostileUpstream } from "../../../test/helpers/fake-hostile-upstream";
import { SETUP_TIMEOUT_MS } from "../../../test/helpers/timeouts";
import {
  fetchUpstream,
  readUpstreamBytes,
  readUpstreamErrorText,
  readUpstreamText,
  UPSTREAM_ERROR_BODY_BYTES,
  UpstreamRedirectError,
  UpstreamResponseTooLargeError,
} from "./fetch-upstream";

let hostile: HostileUpstream;

beforeAll(async () => {
  hostile = await startFakeHostileUpstream({ safetyBytes: 32 * 1024 * 1024 });
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await hostile?.close();
}, SETUP_TIMEOUT_MS);

const post = (path = "/v1/chat/completions") =>
  fetchUpstream(`${hostile.url}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk-channel-key", "content-type": "application/json" },
    body: "{}",
    signal: AbortSignal.timeout(30_000),
  });

describe("fetchUpstream", () => {
  for (const status of [301, 302, 303, 307, 308] as const) {
    test(`a ${status} is thrown as a redirect, never followed, and its Location is not quoted`, async () => {
      hostile.setMode({ kind: "redirect", status });
      const error = await post().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(UpstreamRedirectError);
      expect((error as UpstreamRedirectError).status).toBe(status);
      expect((error as Error).message).not.toContain(LOCATION_SECRET);
      expect(hostile.recorder.requests).toEqual([]);
    });
  }
});

describe("reading an upstream's body", () => {
  test("a body that never ends is cut just past the cap, and the upstream is hung up on", async () => {
    hostile.setMode({ kind: "endless-json" });
    const cancelled = hostile.waitForCancel();
    const error = await readUpstreamText(await post(), 256 * 1024).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect((error as UpstreamResponseTooLargeError).limitBytes).toBe(256 * 1024);
    expect((await cancelled).bytes).toBeLessThan(32 * 1024 * 1024);
  });

  test("the cap counts decoded bytes: a small gzip body that inflates past it is refused", async () => {
    hostile.setMode({ kind: "gzip-bomb", inflatedBytes: 16 * 1024 * 1024 });
    const error = await readUpstreamBytes(await post(), 1024 * 1024).catch((thrown: unknown) => thrown);
    expect(hostile.sent.at(-1)!.bytes).toBeLessThan(1024 * 1024);
    expect(error).toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("read as text, a gzip body with a small declared length is still capped by its decoded bytes", async () => {
    hostile.setMode({ kind: "gzip-bomb", inflatedBytes: 16 * 1024 * 1024 });
    const response = await post();
    const error = await readUpstreamText(response, 1024 * 1024).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("a declared length within the cap is read whole; one past the cap is refused at the cap", async () => {
    const text = JSON.stringify({ hello: "world ".repeat(200) });
    const declared = (body: string) => new Response(body, { headers: { "content-length": String(new TextEncoder().encode(body).byteLength) } });
    expect(await readUpstreamText(declared(text), 64 * 1024)).toBe(text);
    expect(readUpstreamText(declared(text), 100)).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("a body of exactly the cap is read whole, as UTF-8 text; one byte more is refused", async () => {
    const text = JSON.stringify({ hello: "é".repeat(1000) });
    const bytes = new TextEncoder().encode(text).byteLength;
    expect(await readUpstreamText(new Response(text), bytes)).toBe(text);
    expect(readUpstreamText(new Response(text), bytes - 1)).rejects.toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("an error body is read only up to its cap, and what came is kept when it never ends", async () => {
    hostile.setMode({ kind: "endless-json" });
    const cancelled = hostile.waitForCancel();
    const text = await readUpstreamErrorText(await post());
    expect(text.length).toBe(UPSTREAM_ERROR_BODY_BYTES);
    expect(text).toStartWith('{"id":"chatcmpl-hostile"');
    await cancelled;
    expect(await readUpstreamErrorText(new Response('{"error":{"message":"short"}}'))).toBe('{"error":{"message":"short"}}');
  });

  test("an error body that drips is given up on when the call's signal aborts, with what came", async () => {
    hostile.setMode({ kind: "slow-drip", intervalMs: 20 });
    const controller = new AbortController();
    const response = await fetchUpstream(`${hostile.url}/x`, { method: "POST", headers: {}, body: "{}", signal: controller.signal });
    const reading = readUpstreamErrorText(response);
    while (hostile.sent.at(-1)!.bytes < 3) await Bun.sleep(5);
    controller.abort();
    expect(await reading).toStartWith("{");
  });
});
