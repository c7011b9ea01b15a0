import { describe, expect, test } from "bun:test";
import { type Fuzz, forEachCaseAsync } from "@tollgate/shared/fuzz-support";
import { parseEventStream } from "./parse-event-stream";

const encoder = new TextEncoder();

/** An event stream as upstreams write one, with their quirks, and then damaged. */
function randomStream(fuzz: Fuzz): Uint8Array<ArrayBuffer> {
  const newline = fuzz.pick(["\n", "\r\n", "\r"]);
  let text = fuzz.chance(0.1) ? "\ufeff" : "";
  const events = fuzz.int(20);
  for (let index = 0; index < events; index++) {
    const lines: string[] = [];
    if (fuzz.chance(0.3)) lines.push(`event: ${fuzz.pick(["message_start", "ping", "", fuzz.string(10)])}`);
    if (fuzz.chance(0.1)) lines.push(`id: ${fuzz.string(8)}`);
    if (fuzz.chance(0.1)) lines.push(`retry: ${fuzz.pick(["10", "x", "-1"])}`);
    if (fuzz.chance(0.1)) lines.push(`: ${fuzz.string(10)}`);
    const dataLines = 1 + fuzz.int(3);
    for (let line = 0; line < dataLines; line++) lines.push(`data:${fuzz.chance(0.8) ? " " : ""}${fuzz.chance(0.7) ? JSON.stringify(fuzz.json(3)) : fuzz.string(40)}`);
    if (fuzz.chance(0.05)) lines.push(`data: ${"x".repeat(fuzz.int(20_000))}`);
    text += lines.join(newline) + newline + newline;
  }
  if (fuzz.chance(0.1)) text += newline.repeat(fuzz.int(2_000));
  let bytes = encoder.encode(text);
  if (fuzz.chance(0.2)) bytes = bytes.slice(0, fuzz.int(bytes.byteLength + 1));
  if (fuzz.chance(0.2)) for (let flips = 1 + fuzz.int(6); flips > 0 && bytes.byteLength > 0; flips--) bytes[fuzz.int(bytes.byteLength)] = fuzz.int(256);
  if (fuzz.chance(0.05)) bytes = Uint8Array.from({ length: fuzz.int(2_000) }, () => fuzz.int(256));
  return bytes;
}

/** The bytes in random pieces, split anywhere (inside a line, inside a UTF-8 character). */
function streamOf(fuzz: Fuzz, bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let offset = 0;
      while (offset < bytes.byteLength) {
        const size = 1 + fuzz.int(Math.max(1, Math.min(bytes.byteLength, 4_096)));
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      }
      controller.close();
    },
  });
}

describe("parseEventStream under fuzzing", () => {
  test("2,000 random, quirky and damaged streams in random pieces end, with events no larger than the input", async () => {
    let events = 0;
    await forEachCaseAsync(2_000, 60_000, async (fuzz) => {
      const bytes = randomStream(fuzz);
      const reader = parseEventStream(streamOf(fuzz, bytes)).getReader();
      let dataBytes = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        expect(typeof value.data).toBe("string");
        dataBytes += value.data.length;
        events++;
      }
      // Data is only ever a part of what came in (a replacement character for a broken byte at most).
      expect(dataBytes).toBeLessThanOrEqual(bytes.byteLength);
    });
    expect(events).toBeGreaterThan(2_000);
  });

  test("the same stream gives the same events however it is split", async () => {
    await forEachCaseAsync(300, 70_000, async (fuzz) => {
      const bytes = randomStream(fuzz);
      const collect = async (stream: ReadableStream<Uint8Array>) => {
        const seen: Array<{ event?: string; data: string }> = [];
        const reader = parseEventStream(stream).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return seen;
          seen.push({ event: value.event, data: value.data });
        }
      };
      const whole = await collect(new Blob([bytes]).stream());
      expect(await collect(streamOf(fuzz, bytes))).toEqual(whole);
    });
  });
});
