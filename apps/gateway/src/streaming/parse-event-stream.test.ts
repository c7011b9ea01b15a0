import { describe, expect, test } from "bun:test";
import { carriesUsage } from "./openai-event-passthrough";
import { UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { parseEventStream } from "./parse-event-stream";

describe("usage detection in relayed chunks", () => {
  test("a usage object is detected, a null or absent one is not", () => {
    expect(carriesUsage('{"choices":[],"usage":{"prompt_tokens":3}}')).toBe(true);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage": {"prompt_tokens":3}}')).toBe(true);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage":null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}],"usage" : null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"x"}}]}')).toBe(false);
  });

  test("the word usage inside the content does not count, a real usage after it does", () => {
    expect(carriesUsage('{"choices":[{"delta":{"content":"the \\"usage\\" word"}}],"usage":null}')).toBe(false);
    expect(carriesUsage('{"choices":[{"delta":{"content":"\\"usage\\""}}],"usage":{"completion_tokens":1}}')).toBe(true);
  });
});

describe("event stream parsing", () => {
  test("events split across chunks, a character split across chunks and a last event without a blank line", async () => {
    const bytes = new TextEncoder().encode('data: {"a":"é"}\n\nevent: ping\ndata: 1\n\ndata: [DONE]');
    const splitAt = [3, 14, 15, 30];
    const pieces: Uint8Array[] = [];
    let start = 0;
    for (const end of [...splitAt, bytes.length]) {
      pieces.push(bytes.slice(start, end));
      start = end;
    }
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
        controller.close();
      },
    });
    const events: Array<{ event?: string; data: string }> = [];
    const reader = parseEventStream(body).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      events.push(value);
    }
    expect(events.map((event) => [event.event, event.data])).toEqual([
      [undefined, '{"a":"é"}'],
      ["ping", "1"],
      [undefined, "[DONE]"],
    ]);
  });
});

describe("event stream parsing under an event cap", () => {
  function streamOf(pieces: string[]): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
    let wasCancelled = false;
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index < pieces.length) controller.enqueue(new TextEncoder().encode(pieces[index++]!));
        else controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
      },
      cancel() {
        wasCancelled = true;
      },
    });
    return { body, cancelled: () => wasCancelled };
  }

  test("an event that never ends errors the stream after the whole events before it, and the upstream is cancelled", async () => {
    const { body, cancelled } = streamOf(["data: 1\n\ndata: 2\n\ndata: xx"]);
    const reader = parseEventStream(body, 8 * 1024).getReader();
    const data: string[] = [];
    let failure: unknown = null;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        data.push(value.data);
      }
    } catch (error) {
      failure = error;
    }
    expect(data).toEqual(["1", "2"]);
    expect(failure).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect(cancelled()).toBe(true);
  });

  test("events up to the cap pass, however many", async () => {
    const event = `data: ${"y".repeat(1000)}\n\n`;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 200; index++) controller.enqueue(new TextEncoder().encode(event));
        controller.close();
      },
    });
    let count = 0;
    const reader = parseEventStream(body, event.length).getReader();
    while (!(await reader.read()).done) count++;
    expect(count).toBe(200);
  });
});
