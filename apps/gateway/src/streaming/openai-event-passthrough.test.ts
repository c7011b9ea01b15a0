import { describe, expect, test } from "bun:test";
import type { EventSourceMessage } from "eventsource-parser";
import { UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { eventData } from "./event-data";
import { bytesCarryUsage, carriesUsage, createPassthroughFramer } from "./openai-event-passthrough";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const contentChunk = (text: string) => `data: {"id":"c1","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}],"usage":null}\n\n`;
const usageChunk = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}\n\n';

function framer(options: { forwardUsage: boolean }) {
  const usage: Record<string, unknown>[] = [];
  const forwarded: (string | Uint8Array)[] = [];
  const instance = createPassthroughFramer({
    onUsageEvent: (_event: EventSourceMessage, chunk) => usage.push(chunk),
    onForwarded: (events) => forwarded.push(events),
    renderUsageEvent: (event, chunk) => {
      if (options.forwardUsage) return `data: ${event.data}\n\n`;
      return (chunk.choices as unknown[]).length === 0 ? "" : `data: ${event.data}\n\n`;
    },
  });
  return { instance, usage, forwarded };
}

/** Feeds the pieces, returns what the client received as separate outputs. */
function run(instance: ReturnType<typeof framer>["instance"], pieces: Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const piece of pieces) {
    const framed = instance.frame(piece);
    if (framed) out.push(framed);
  }
  const rest = instance.flush();
  if (rest) out.push(rest);
  return out;
}

function split(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const end of [...at, bytes.length]) {
    pieces.push(bytes.slice(start, end));
    start = end;
  }
  return pieces;
}

const joined = (parts: Uint8Array[]) => parts.map((part) => decoder.decode(part, { stream: true })).join("") + decoder.decode();

describe("the OpenAI stream passthrough", () => {
  test("whole events without usage go out as the same bytes, not copies", () => {
    const { instance, usage } = framer({ forwardUsage: true });
    const piece = encoder.encode(contentChunk("Hel") + contentChunk("lo"));
    const out = run(instance, [piece]);
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(piece);
    expect(usage).toEqual([]);
  });

  test("events and characters split across chunks come out whole and intact at every split point", () => {
    const text = contentChunk("héllo 🌍") + 'event: ping\ndata: 1\n\n' + ": keep-alive\n\n" + contentChunk("wörld") + usageChunk + "data: [DONE]\n\n";
    const bytes = encoder.encode(text);
    for (let first = 1; first < bytes.length; first += 7) {
      for (const second of [first + 1, first + 3, first + 29]) {
        const { instance, usage } = framer({ forwardUsage: true });
        const out = run(instance, split(bytes, second < bytes.length ? [first, second] : [first]));
        expect(joined(out)).toBe(text);
        expect(usage).toHaveLength(1);
      }
    }
  });

  test("the usage chunk is parsed and reported, and dropped when the client did not ask for it", () => {
    const { instance, usage, forwarded } = framer({ forwardUsage: false });
    const text = contentChunk("a") + usageChunk + "data: [DONE]\n\n";
    const out = run(instance, [encoder.encode(text)]);
    expect(joined(out)).toBe(contentChunk("a") + "data: [DONE]\n\n");
    expect(usage).toEqual([{ id: "c1", choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } }]);
    expect(eventData(forwarded)).toContain('{"id":"c1","choices":[{"index":0,"delta":{"content":"a"}}],"usage":null}');
  });

  test("a last event without its blank line is closed and kept", () => {
    const { instance } = framer({ forwardUsage: true });
    const out = run(instance, [encoder.encode(contentChunk("a") + "data: [DONE]")]);
    expect(joined(out)).toBe(contentChunk("a") + "data: [DONE]\n\n");
  });

  test("an upstream framing with CR LF is re-framed with LF, its usage still found", () => {
    const { instance, usage } = framer({ forwardUsage: false });
    const text = (contentChunk("a") + usageChunk + "data: [DONE]\n\n").replaceAll("\n", "\r\n");
    const out = run(instance, split(encoder.encode(text), [10, 120]));
    expect(joined(out)).toBe(contentChunk("a") + "data: [DONE]\n\n");
    expect(usage).toHaveLength(1);
  });

  test("the forwarded text gives back every event's data for a local count", () => {
    const { instance, forwarded } = framer({ forwardUsage: true });
    run(instance, split(encoder.encode(contentChunk("x") + contentChunk("y") + "data: [DONE]\n\n"), [5, 60]));
    expect(eventData(forwarded).map((data) => (data === "[DONE]" ? data : JSON.parse(data).choices[0].delta.content))).toEqual(["x", "y", "[DONE]"]);
  });

  test("a chunk that ends inside a blank line keeps its first line feed for the next chunk", () => {
    const { instance, forwarded } = framer({ forwardUsage: true });
    const text = contentChunk("a") + contentChunk("b");
    const bytes = encoder.encode(text);
    const cut = text.indexOf("\n\n") + 1;
    const out = run(instance, split(bytes, [cut]));
    expect(joined(out)).toBe(text);
    expect(eventData(forwarded)).toHaveLength(2);
  });
});

describe("a block holding a whole stream (an upstream that answers at once)", () => {
  test("only the usage event is parsed: the events around it go out as their bytes, as the upstream framed them", () => {
    const { instance, usage, forwarded } = framer({ forwardUsage: false });
    const before = "retry: 10\n" + contentChunk("a") + ": keep-alive\n\n" + contentChunk("b");
    const after = "id: 9\n" + contentChunk("c") + "data: [DONE]\n\n";
    const out = run(instance, [encoder.encode(before + usageChunk + after + usageChunk.replace("5", "6"))]);
    expect(out).toHaveLength(1);
    expect(joined(out)).toBe(before + after);
    expect(usage.map((chunk) => (chunk.usage as { prompt_tokens: number }).prompt_tokens)).toEqual([5, 6]);
    expect(eventData(forwarded).filter((data) => data !== "[DONE]").map((data) => JSON.parse(data).choices[0].delta.content)).toEqual(["a", "b", "c"]);
  });

  test("a usage event that is the whole block, or its first or last event, is parsed and the rest kept", () => {
    for (const text of [usageChunk, usageChunk + contentChunk("z"), contentChunk("z") + usageChunk]) {
      const { instance, usage } = framer({ forwardUsage: true });
      expect(joined(run(instance, [encoder.encode(text)]))).toBe(text);
      expect(usage).toHaveLength(1);
    }
  });
});

describe("the usage scan on bytes", () => {
  const samples = [
    contentChunk("a"),
    usageChunk,
    'data: {"usage" : {"prompt_tokens":1}}\n\n',
    'data: {"usage":  null}\n\n',
    'data: {"choices":[{"delta":{"content":"\\"usage\\": 3"}}]}\n\n',
    'data: {"x":"usage","usage":null,"y":{"usage":{"total_tokens":2}}}\n\n',
    'data: {"logprobs":null,"system_fingerprint":"fp_g","content":"ggg é 🌍 usage"}\n\n',
    'data: {"usage":\n',
    '"usage"',
    "g",
    "",
    'data: {"usagex":{"a":1},"usage":null}\n\n',
  ];

  test("gives the same answer as the scan of the decoded text, for every sample and every prefix of it", () => {
    for (const sample of samples) {
      for (let end = 0; end <= sample.length; end++) {
        const text = sample.slice(0, end);
        expect({ text, found: bytesCarryUsage(encoder.encode(text)) }).toEqual({ text, found: carriesUsage(text) });
      }
    }
  });

  test("finds a usage object and passes over a null one, a string that names usage, and other keys", () => {
    expect(bytesCarryUsage(encoder.encode(usageChunk))).toBe(true);
    expect(bytesCarryUsage(encoder.encode(contentChunk("usage")))).toBe(false);
    expect(bytesCarryUsage(encoder.encode('data: {"usagex":{"a":1},"usage":null}\n\n'))).toBe(false);
  });
});

describe("the relay's event cap", () => {
  function capped(maxEventBytes: number) {
    const forwarded: (string | Uint8Array)[] = [];
    return createPassthroughFramer(
      { onUsageEvent: () => {}, onForwarded: (events) => forwarded.push(events), renderUsageEvent: (event) => `data: ${event.data}\n\n` },
      maxEventBytes,
    );
  }

  test("an event that never ends is refused once past the cap, whether it comes in many reads or in one", () => {
    const framer = capped(4096);
    expect(framer.frame(encoder.encode("data: {\"a\":\""))).toBeNull();
    const filler = encoder.encode("a".repeat(1024));
    expect(() => {
      for (let index = 0; index < 10; index++) framer.frame(filler);
    }).toThrow(UpstreamResponseTooLargeError);
    expect(() => capped(4096).frame(encoder.encode(`data: ${"b".repeat(5000)}`))).toThrow(UpstreamResponseTooLargeError);
  });

  test("the whole events before an oversized one go out, then the stream ends with the error", () => {
    const framer = capped(4096);
    const out = framer.frame(encoder.encode(`${contentChunk("hello")}data: ${"c".repeat(5000)}`));
    expect(decoder.decode(out!)).toBe(contentChunk("hello"));
    expect(framer.failure()).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect(() => framer.frame(encoder.encode("ccc"))).toThrow(UpstreamResponseTooLargeError);
    expect(() => framer.flush()).toThrow(UpstreamResponseTooLargeError);
  });

  test("an upstream framing with CR LF is held to the same cap", () => {
    const framer = capped(4096);
    const out = framer.frame(encoder.encode(`data: 1\r\n\r\ndata: ${"d".repeat(5000)}`));
    expect(decoder.decode(out!)).toBe("data: 1\n\n");
    expect(framer.failure()).toBeInstanceOf(UpstreamResponseTooLargeError);
  });

  test("events as large as the cap pass", () => {
    const framer = capped(4096);
    const event = `data: ${"e".repeat(4000)}\n\n`;
    const halves = [encoder.encode(event.slice(0, 2000)), encoder.encode(event.slice(2000))];
    for (let index = 0; index < 20; index++) {
      expect(framer.frame(halves[0]!)).toBeNull();
      expect(decoder.decode(framer.frame(halves[1]!)!)).toBe(event);
    }
    expect(framer.failure()).toBeNull();
  });
});

describe("the relay's pending event across reads", () => {
  test("a stream cut at every possible place, in reads of any size, comes out byte for byte", () => {
    const stream = encoder.encode(
      [contentChunk("héllo"), contentChunk("x".repeat(3000)), usageChunk.replace('"completion_tokens":7', '"completion_tokens":8'), contentChunk("end"), "data: [DONE]\n\n"].join(""),
    );
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 200; round++) {
      const maxRead = 1 + Math.floor(random() * (round < 100 ? 8 : 900));
      const cuts: number[] = [];
      for (let at = 1 + Math.floor(random() * maxRead); at < stream.length; at += 1 + Math.floor(random() * maxRead)) cuts.push(at);
      const { instance, usage } = framer({ forwardUsage: true });
      const out = run(instance, split(stream, cuts));
      expect(decoder.decode(Buffer.concat(out))).toBe(decoder.decode(stream));
      expect(usage).toHaveLength(1);
    }
  });
});

describe("a line feed near an event's start", () => {
  test("a one-character line at the start of an event is held, not searched for ever", () => {
    const { instance } = framer({ forwardUsage: true });
    expect(instance.frame(encoder.encode("x\ny"))).toBeNull();
    expect(decoder.decode(instance.frame(encoder.encode("\n\n"))!)).toBe("x\ny\n\n");
  });
});
