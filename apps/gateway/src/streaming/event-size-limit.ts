import { UpstreamResponseTooLargeError } from "@tollgate/upstream";

const LINE_FEED = 10;
const CARRIAGE_RETURN = 13;

function isLineEnd(byte: number | undefined): boolean {
  return byte === LINE_FEED || byte === CARRIAGE_RETURN;
}

/**
 * Where the bytes after the last blank line of `bytes` start (an SSE event ends at a blank line: two line
 * ends in a row, CR LF counting as one), or -1 when it holds none. `previousByte` is the last byte of the
 * chunk before, so that a blank line split across two chunks is seen. The scan jumps from line end to line
 * end with the native lastIndexOf, from the end: a stream's chunks mostly end on an event, found at once.
 */
export function afterLastBlankLine(bytes: Uint8Array, previousByte: number | undefined): number {
  let index = bytes.byteLength - 1;
  while (index >= 0) {
    index = Math.max(bytes.lastIndexOf(LINE_FEED, index), bytes.lastIndexOf(CARRIAGE_RETURN, index));
    if (index === -1) return -1;
    const before = index > 0 ? bytes[index - 1] : previousByte;
    if (isLineEnd(before) && !(before === CARRIAGE_RETURN && bytes[index] === LINE_FEED)) return index + 1;
    index -= 1;
  }
  return -1;
}

/**
 * The size of the event an upstream stream is sending, as its bytes arrive: an event (the bytes since the
 * last blank line) longer than `maxBytes` throws UpstreamResponseTooLargeError, so that an upstream that
 * never ends its event is stopped at the cap instead of being buffered by the parser without bound.
 */
export class EventSizeLimit {
  private pendingBytes = 0;
  private lastByte: number | undefined = undefined;

  constructor(readonly maxBytes: number) {}

  observe(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    const after = afterLastBlankLine(bytes, this.lastByte);
    this.pendingBytes = after === -1 ? this.pendingBytes + bytes.byteLength : bytes.byteLength - after;
    this.lastByte = bytes[bytes.byteLength - 1];
    if (this.pendingBytes > this.maxBytes) throw new UpstreamResponseTooLargeError(this.maxBytes, "stream event");
  }
}
