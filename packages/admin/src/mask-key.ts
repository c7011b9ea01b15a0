/** Keys shorter than this show no character at all: their last four would be too large a part of them. */
const MIN_LENGTH_TO_SHOW = 16;

/**
 * An upstream key as it may be displayed: only its last 4 characters, after the `sk-` that marks the key
 * format (`sk-…cdef`, or `…cdef` for other formats), enough to tell two keys apart and no help in guessing
 * one. A key too short for that shows as `****`.
 */
export function maskKey(key: string): string {
  if (key.length < MIN_LENGTH_TO_SHOW) return "****";
  return `${key.startsWith("sk-") ? "sk-" : ""}…${key.slice(-4)}`;
}
