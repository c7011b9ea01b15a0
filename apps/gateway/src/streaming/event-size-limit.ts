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
    if (isLineEnd(before) && !(before === CARRIAGE_RETURN && bytes[index] === LINE_FEED)) {
      // A blank line ended by CR LF ends after its LF.
      return bytes[index] === CARRIAGE_RETURN && bytes[index + 1] === LINE_FEED ? index + 2 : index + 1;
    }
    index -= 1;
  }
  return -1;
}

/**
 * The size of the event an upstream stream is sending, as its bytes arrive: an event (the bytes since the
 * last blank line) may not pass `maxBytes`, so that an upstream that never ends its event is stopped at the
 * cap instead of being buffered by a parser without bound.
 */
export class EventSizeLimit {
  private pendingBytes = 0;
  private lastByte: number | undefined = undefined;
  /** Set once an event went past the cap: nothing more of the stream is to be read. */
  exceeded: UpstreamResponseTooLargeError | null = null;

  constructor(readonly maxBytes: number) {}

  /**
   * How many bytes of `bytes` may be passed on: all of them while the event being received is within the
   * cap; once it goes past, only the whole events before it (up to its last blank line, 0 when none), and
   * `exceeded` is set, so that what came whole still reaches the client before the error.
   */
  accept(bytes: Uint8Array): number {
    if (bytes.byteLength === 0) return 0;
    const after = afterLastBlankLine(bytes, this.lastByte);
    const pending = after === -1 ? this.pendingBytes + bytes.byteLength : bytes.byteLength - after;
    if (pending > this.maxBytes) {
      this.exceeded = new UpstreamResponseTooLargeError(this.maxBytes, "stream event");
      return after === -1 ? 0 : after;
    }
    this.pendingBytes = pending;
    this.lastByte = bytes[bytes.byteLength - 1];
    return bytes.byteLength;
  }
}
