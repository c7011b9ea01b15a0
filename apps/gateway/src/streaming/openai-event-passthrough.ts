import type { EventSourceMessage } from "eventsource-parser";
import { createParser } from "eventsource-parser";

const encoder = new TextEncoder();
const LINE_FEED = 10;

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

export interface PassthroughHooks {
  /** An event whose JSON carries a usage object, parsed: the only events the relay parses. */
  onUsageEvent(event: EventSourceMessage, chunk: Record<string, unknown>): void;
  /** Whole events forwarded untouched, as text (one or more `data:` events), for a local count later. */
  onForwardedText(text: string): void;
  /** Renders a parsed usage-carrying event for the client, or "" to drop it. */
  renderUsageEvent(event: EventSourceMessage, chunk: Record<string, unknown>): string;
}

export interface PassthroughFramer {
  /** Upstream bytes in, bytes for the client out (null while an event is still incomplete). */
  frame(bytes: Uint8Array): Uint8Array | null;
  /** What is left when the upstream ends: a last event without its blank line is closed and kept. */
  flush(): Uint8Array | null;
}

export function renderEvent(event: EventSourceMessage): string {
  return `${event.id ? `id: ${event.id}\n` : ""}${event.event ? `event: ${event.event}\n` : ""}data: ${event.data}\n\n`;
}

/**
 * The relay of an OpenAI-compatible stream, byte for byte: upstream chunks that hold only whole events and
 * no usage object are forwarded as the very same bytes (no parse, no copy); events are cut only at their
 * blank line, so a chunk boundary inside an event or inside a UTF-8 character is carried to the next
 * chunk. Only the usage chunk is parsed (to bill it, and to drop it if the client did not ask for it).
 * An upstream that frames with CR LF goes through eventsource-parser instead, and is re-framed with LF.
 */
export function createPassthroughFramer(hooks: PassthroughHooks): PassthroughFramer {
  const decoder = new TextDecoder();
  let pending = "";
  let parsedMode = false;
  const parsed: string[] = [];
  // Created on the first block that needs it: most streams need it once, for the usage chunk.
  let parser: ReturnType<typeof createParser> | null = null;

  function renderParsed(event: EventSourceMessage): string {
    if (event.data === "[DONE]" || !carriesUsage(event.data)) {
      const text = renderEvent(event);
      hooks.onForwardedText(text);
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

  return {
    frame(bytes) {
      const text = decoder.decode(bytes, { stream: true });
      if (parsedMode) return throughParser(text);
      if (text.includes("\r")) {
        parsedMode = true;
        const carried = pending;
        pending = "";
        return throughParser(carried + text);
      }
      const combined = pending ? pending + text : text;
      const cut = combined.lastIndexOf("\n\n");
      if (cut === -1) {
        pending = combined;
        return null;
      }
      const end = cut + 2;
      const whole = end === combined.length;
      const complete = whole ? combined : combined.slice(0, end);
      // The very bytes can go out when they hold exactly `complete`: nothing carried in from before, and
      // they end on a line feed (so no part of a character is left in the decoder).
      const sameBytes = pending === "" && whole && bytes[bytes.length - 1] === LINE_FEED && (bytes[0]! & 0xc0) !== 0x80;
      pending = whole ? "" : combined.slice(end);
      if (!carriesUsage(complete)) {
        hooks.onForwardedText(complete);
        return sameBytes ? bytes : encoder.encode(complete);
      }
      return throughParser(complete);
    },
    flush() {
      const rest = pending + decoder.decode();
      pending = "";
      if (!parsedMode && rest.trim() === "") return null;
      // Some upstreams end without the blank line after their last event: close it, so it is not lost.
      return throughParser(`${rest}\n\n`);
    },
  };
}
