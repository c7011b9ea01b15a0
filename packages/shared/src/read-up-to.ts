import { concatBytes } from "./concat-bytes";

/**
 * Reads a stream to its end, chunk by chunk, stopping at `maxBytes`: past them the read is cancelled (no more
 * is buffered) and `tooLarge()` thrown, so that what is held never passes the cap by more than a chunk.
 */
export async function readUpTo(reader: ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>>, maxBytes: number, tooLarge: () => unknown): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks, total);
}
