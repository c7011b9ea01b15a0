import { createParser } from "eventsource-parser";

const utf8 = new TextDecoder();

/**
 * The `data` of every event in SSE text or bytes (whole events, as the passthrough relay forwarded them:
 * each piece of bytes is whole UTF-8).
 */
export function eventData(pieces: readonly (string | Uint8Array)[]): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  for (const piece of pieces) parser.feed(typeof piece === "string" ? piece : utf8.decode(piece));
  parser.feed("\n\n");
  return data;
}
