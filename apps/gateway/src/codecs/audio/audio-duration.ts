/**
 * How long an uploaded audio file plays, from what its header says, for billing per audio second when the
 * upstream does not report it. Only WAV (RIFF) states it exactly in its header (data size / byte rate);
 * compressed formats (mp3, m4a, ogg, webm, flac) would need their frames walked, so they get the size bound
 * below instead. A header is the client's word: the upstream's reported duration, when it gives one, is
 * always preferred to it.
 */

/** Bytes read from the start of the file: a WAV header with a few metadata chunks before "data" fits. */
export const HEADER_BYTES = 64 * 1024;

/**
 * The lowest bitrate assumed for a file whose header gives no duration: 32 kbit/s (4,000 bytes a second),
 * below what speech-to-text uploads use in practice (OpenAI's guide suggests mp3 at 32-128 kbit/s to fit
 * its 25 MB limit), so that the seconds derived from the size are an upper bound for the reservation.
 */
const FLOOR_BYTES_PER_SECOND = 4_000;

/** The duration of a WAV file in milliseconds from its header, or null when `header` is not a readable WAV. */
export function wavDurationMs(header: Uint8Array, fileBytes: number): number | null {
  if (header.byteLength < 12) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const tag = (offset: number) => String.fromCharCode(header[offset]!, header[offset + 1]!, header[offset + 2]!, header[offset + 3]!);
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
  let byteRate: number | null = null;
  let offset = 12;
  while (offset + 8 <= header.byteLength) {
    const id = tag(offset);
    const size = view.getUint32(offset + 4, true);
    const start = offset + 8;
    // Decoders play sample frames (blockAlign bytes each) at the sample rate; the header's own byteRate
    // field is not what they read, so a file cannot shorten its billed duration by misstating it.
    if (id === "fmt " && start + 14 <= header.byteLength) byteRate = view.getUint32(start + 4, true) * view.getUint16(start + 12, true);
    if (id === "data") {
      if (!byteRate) return null;
      // A WAV written as a stream may leave the size unset (0 or 0xFFFFFFFF): the rest of the file is data.
      const dataBytes = size === 0 || size === 0xffffffff ? fileBytes - start : Math.min(size, fileBytes - start);
      return Math.max(0, Math.round((dataBytes * 1000) / byteRate));
    }
    offset = start + size + (size % 2);
  }
  return null;
}

/** An upper bound of the duration of a file of `fileBytes` in another format (see FLOOR_BYTES_PER_SECOND). */
export function sizeBoundDurationMs(fileBytes: number): number {
  return Math.ceil((fileBytes * 1000) / FLOOR_BYTES_PER_SECOND);
}
