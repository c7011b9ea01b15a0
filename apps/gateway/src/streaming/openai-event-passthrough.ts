import { concatBytes } from "@tollgate/shared";
import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";
import { DEFAULT_UPSTREAM_MAX_EVENT_BYTES, UpstreamResponseTooLargeError } from "@tollgate/upstream";
import { EventSizeLimit } from "./event-size-limit";

const encoder = new TextEncoder();
const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;
/** A pending event shorter than this grows to exactly its size; a longer one doubles its buffer. */
const GROW_EXACTLY_BELOW = 64 * 1024;

/**
 * Whether a relayed chunk carries a usage object. Most chunks carry none, or `"usage":null` when the
 * gateway asked for the usage chunk: those are forwarded without parsing (JSON.parse per chunk is a
 * large share of a relay's CPU at a thousand streams).
 */
export function carriesUsage(data: string): boolean {
  let index = data.indexOf('"usage"');
  while (index !== -1) {
    let cursor = index + 7;
    while (data[cursor] === " ") cursor++;
    if (data[cursor] === ":") {
      cursor++;
      while (data[cursor] === " ") cursor++;
      if (data[cursor] !== "n") return true;
    }
    index = data.indexOf('"usage"', index + 7);
  }
  return false;
}

/**
 * carriesUsage on the UTF-8 bytes, without decoding them: the same answer for the same text. It looks for
 * the `g` of `"usage"` (a byte that few chunk keys hold: the native indexOf skips most of a chunk) and checks
 * the bytes around it; every byte of the pattern is ASCII, which never occurs inside a multi-byte character.
 */
export function bytesCarryUsage(bytes: Uint8Array): boolean {
  return usageAt(bytes, 0) !== -1;
}

// Only usageAt reads these: the `g` it searches for, and the quotes, spaces and colon around the key.
const QUOTE = 0x22;
const SPACE = 0x20;
const COLON = 0x3a;
const LETTER_G = 0x67;

/** Where the first `"usage"` key with a value other than null starts, at or after `from`; -1 if none. */
function usageAt(bytes: Uint8Array, from: number): number {
  let index = bytes.indexOf(LETTER_G, from + 4);
  while (index !== -1) {
    if (
      bytes[index + 2] === QUOTE &&
      bytes[index + 1] === 0x65 &&
      bytes[index - 1] === 0x61 &&
      bytes[index - 2] === 0x73 &&
      bytes[index - 3] === 0x75 &&
      bytes[index - 4] === QUOTE
    ) {
      let cursor = index + 3;
      while (bytes[cursor] === SPACE) cursor++;
      if (bytes[cursor] === COLON) {
        cursor++;
        while (bytes[cursor] === SPACE) cursor++;
        if (bytes[cursor] !== 0x6e) return index - 4;
      }
    }
    index = bytes.indexOf(LETTER_G, index + 1);
  }
  return -1;
}

/** End of the first blank line ("\n\n") at or after `from`, or -1. */
function endOfNextEvent(bytes: Uint8Array, from: number): number {
  let index = bytes.indexOf(LINE_FEED, from);
  while (index !== -1 && index + 1 < bytes.byteLength) {
    if (bytes[index + 1] === LINE_FEED) return index + 2;
    index = bytes.indexOf(LINE_FEED, index + 1);
  }
  return -1;
}

/** End of the last blank line ("\n\n") in `bytes` between `start` and `end` (excluded), or -1. */
function endOfLastEvent(bytes: Uint8Array, start = 0, end = bytes.byteLength): number {
  if (end <= start) return -1;
  let index = bytes.lastIndexOf(LINE_FEED, end - 1);
  while (index > start) {
    if (bytes[index - 1] === LINE_FEED) return index + 1;
    // A negative fromIndex would count from the end again (and loop for ever on "x\ny"): none is left here.
    if (index < 2) return -1;
    index = bytes.lastIndexOf(LINE_FEED, index - 2);
  }
  return -1;
}

export interface PassthroughHooks {
  /** An event whose JSON carries a usage object, parsed: the only events the relay parses. */
  onUsageEvent(event: EventSourceMessage, chunk: Record<string, unknown>): void;
  /**
   * Whole events forwarded untouched (one or more `data:` events), for a local count later: their bytes as
   * they went out (always whole UTF-8: they start and end at an event boundary), or their text.
   */
  onForwarded(events: Uint8Array | string): void;
  /** Renders a parsed usage-carrying event for the client, or "" to drop it. */
  renderUsageEvent(event: EventSourceMessage, chunk: Record<string, unknown>): string;
}

export interface PassthroughFramer {
  /** Upstream bytes in, bytes for the client out (null while an event is still incomplete). */
  frame(bytes: Uint8Array): Uint8Array | null;
  /** What is left when the upstream ends: a last event without its blank line is closed and kept. */
  flush(): Uint8Array | null;
  /**
   * Set once an event went past the cap after whole events that frame() still returned: the stream ends
   * with it before anything more is read.
   */
  failure(): UpstreamResponseTooLargeError | null;
}

export function renderEvent(event: EventSourceMessage): string {
  return `${event.id ? `id: ${event.id}\n` : ""}${event.event ? `event: ${event.event}\n` : ""}data: ${event.data}\n\n`;
}

/**
 * The relay of an OpenAI-compatible stream, byte for byte: upstream chunks that hold only whole events and
 * no usage object are forwarded as the very same bytes (no decode, no parse, no copy); events are cut only
 * at their blank line, found in the bytes, so a chunk boundary inside an event or inside a UTF-8 character is
 * carried to the next chunk. Only the usage chunk is decoded and parsed (to bill it, and to drop it if the
 * client did not ask for it). An upstream that frames with CR LF goes through eventsource-parser instead,
 * and is re-framed with LF. Either way an event (the bytes since the last blank line) longer than
 * `maxEventBytes` throws UpstreamResponseTooLargeError: an event that never ends is not held without bound.
 */
export function createPassthroughFramer(hooks: PassthroughHooks, maxEventBytes = DEFAULT_UPSTREAM_MAX_EVENT_BYTES): PassthroughFramer {
  // Created when something is to be decoded: the usage event, a CR LF upstream, a last incomplete event.
  let utf8: TextDecoder | null = null;
  const decoder = () => (utf8 ??= new TextDecoder());
  /**
   * Bytes of an event not yet complete (they start at an event boundary): the first `pendingLength` of a
   * buffer that doubles as an event grows over many reads, so that a long event costs linear copying, not
   * a copy of all it holds per read. Never handed out while it is being appended to.
   */
  let pendingBuffer: Uint8Array | null = null;
  let pendingLength = 0;
  const pending = () => (pendingBuffer ? pendingBuffer.subarray(0, pendingLength) : null);
  let parsedMode = false;
  const parsed: string[] = [];
  // Created on the first block that needs it: most streams need it once, for the usage chunk.
  let parser: ReturnType<typeof createParser> | null = null;
  // The CR LF mode's count of the event being received (the LF mode's is `pendingLength`).
  let parsedEventSize: EventSizeLimit | null = null;
  let overflow: UpstreamResponseTooLargeError | null = null;
  const tooLarge = () => new UpstreamResponseTooLargeError(maxEventBytes, "stream event");

  /** CR LF mode: what the event size allows of `bytes` through the parser; past the cap, the whole events before it. */
  function throughParserWithin(bytes: Uint8Array): Uint8Array | null {
    const accepted = parsedEventSize!.accept(bytes);
    const out = accepted > 0 ? throughParser(decoder().decode(accepted === bytes.byteLength ? bytes : bytes.subarray(0, accepted), { stream: true })) : null;
    if (parsedEventSize!.exceeded) {
      overflow = parsedEventSize!.exceeded;
      if (!out) throw overflow;
    }
    return out;
  }

  function renderParsed(event: EventSourceMessage): string {
    if (event.data === "[DONE]" || !carriesUsage(event.data)) {
      const text = renderEvent(event);
      hooks.onForwarded(text);
      return text;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(event.data);
    } catch {
      return renderEvent(event);
    }
    hooks.onUsageEvent(event, chunk);
    return hooks.renderUsageEvent(event, chunk);
  }

  function throughParser(text: string): Uint8Array | null {
    parser ??= createParser({
      onEvent(event) {
        parsed.push(renderParsed(event));
      },
      // Keep-alive comments go out too: some clients and proxies count on them.
      onComment(comment) {
        parsed.push(`: ${comment}\n\n`);
      },
    });
    parser.feed(text);
    if (parsed.length === 0) return null;
    const out = parsed.length === 1 ? parsed[0]! : parsed.join("");
    parsed.length = 0;
    return out ? encoder.encode(out) : null;
  }

  /**
   * Whole events: the events that carry usage are decoded and go through the parser, every other event goes
   * out as its bytes (an upstream that answers at once sends a whole stream, its usage chunk included, in
   * one or two reads: only that one event is parsed, not the stream).
   */
  function frameWholeEvents(complete: Uint8Array): Uint8Array | null {
    let at = usageAt(complete, 0);
    if (at === -1) {
      hooks.onForwarded(complete);
      return complete;
    }
    const out: Uint8Array[] = [];
    let start = 0;
    while (at !== -1) {
      const before = endOfLastEvent(complete, start, at);
      const eventStart = before === -1 ? start : before;
      const eventEnd = endOfNextEvent(complete, at);
      const eventStop = eventEnd === -1 ? complete.byteLength : eventEnd;
      if (eventStart > start) {
        const untouched = complete.subarray(start, eventStart);
        hooks.onForwarded(untouched);
        out.push(untouched);
      }
      const rendered = throughParser(decoder().decode(complete.subarray(eventStart, eventStop)));
      if (rendered) out.push(rendered);
      start = eventStop;
      at = start < complete.byteLength ? usageAt(complete, start) : -1;
    }
    if (start < complete.byteLength) {
      const untouched = complete.subarray(start);
      hooks.onForwarded(untouched);
      out.push(untouched);
    }
    if (out.length === 0) return null;
    return out.length === 1 ? out[0]! : concatBytes(out);
  }

  return {
    frame(bytes) {
      if (overflow) throw overflow;
      if (bytes.byteLength === 0) return null;
      if (parsedMode) return throughParserWithin(bytes);
      if (bytes.indexOf(CARRIAGE_RETURN) !== -1) {
        parsedMode = true;
        const held = pending();
        const carried = held ? concatBytes([held, bytes]) : bytes;
        pendingBuffer = null;
        pendingLength = 0;
        parsedEventSize = new EventSizeLimit(maxEventBytes);
        return throughParserWithin(carried);
      }
      let combined = bytes;
      let searchFrom = 0;
      if (pendingBuffer) {
        const length = pendingLength + bytes.byteLength;
        if (length > pendingBuffer.byteLength) {
          // Exactly what is needed while the event is small (the usual event split across two reads); doubling
          // past that, so that a long event costs linear copying.
          const size = length < GROW_EXACTLY_BELOW ? length : Math.max(length, Math.min(pendingBuffer.byteLength * 2, maxEventBytes + 1));
          const grown = new Uint8Array(size);
          grown.set(pendingLength === pendingBuffer.byteLength ? pendingBuffer : pendingBuffer.subarray(0, pendingLength));
          pendingBuffer = grown;
        }
        pendingBuffer.set(bytes, pendingLength);
        combined = length === pendingBuffer.byteLength ? pendingBuffer : pendingBuffer.subarray(0, length);
        // Only the new bytes (and the one before them, for a blank line split across reads) can end an event.
        searchFrom = pendingLength - 1;
      }
      const end = searchFrom > 0 && bytes.indexOf(LINE_FEED) === -1 ? -1 : endOfLastEvent(combined, searchFrom);
      if (end === -1) {
        if (combined.byteLength > maxEventBytes) throw tooLarge();
        // Copied: what is kept must not depend on the upstream's buffer.
        if (!pendingBuffer) pendingBuffer = bytes.slice();
        pendingLength = combined.byteLength;
        return null;
      }
      const whole = end === combined.byteLength;
      const complete = whole ? combined : combined.subarray(0, end);
      // `complete` may be a view of the pending buffer: it is handed out, so the rest goes to a buffer of its own.
      pendingBuffer = whole ? null : combined.slice(end);
      pendingLength = pendingBuffer ? pendingBuffer.byteLength : 0;
      if (pendingLength > maxEventBytes) {
        // The whole events before it go out first; the stream ends with the error before the next read.
        pendingBuffer = null;
        pendingLength = 0;
        overflow = tooLarge();
      }
      return frameWholeEvents(complete);
    },
    failure: () => overflow,
    flush() {
      if (overflow) throw overflow;
      const held = pending();
      const rest = (held ? decoder().decode(held, { stream: true }) : "") + (utf8 ? utf8.decode() : "");
      pendingBuffer = null;
      pendingLength = 0;
      if (!parsedMode && rest.trim() === "") return null;
      // Some upstreams end without the blank line after their last event: close it, so it is not lost.
      return throughParser(`${rest}\n\n`);
    },
  };
}
