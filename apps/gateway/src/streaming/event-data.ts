import { createParser } from "eventsource-parser";

/** The `data` of every event in SSE text (whole events, as the passthrough relay forwarded them). */
export function eventData(texts: readonly string[]): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  for (const text of texts) parser.feed(text);
  parser.feed("\n\n");
  return data;
}
