import { describe, expect, test } from "bun:test";
import type { EventSourceMessage } from "eventsource-parser";
import { eventData } from "./event-data";
import { createPassthroughFramer } from "./openai-event-passthrough";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const contentChunk = (text: string) => `data: {"id":"c1","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}],"usage":null}\n\n`;
const usageChunk = 'data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}\n\n';

function framer(options: { forwardUsage: boolean }) {
  const usage: Record<string, unknown>[] = [];
  const forwarded: string[] = [];
  const instance = createPassthroughFramer({
    onUsageEvent: (_event: EventSourceMessage, chunk) => usage.push(chunk),
    onForwardedText: (text) => forwarded.push(text),
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
});
