import { describe, expect, test } from "bun:test";
import { carriesUsage } from "./openai-event-passthrough";
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
