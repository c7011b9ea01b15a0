/**
 * The pieces as one array of bytes; a single piece is returned as it is (no copy). `total` is their summed
 * length when the caller counted it while reading; otherwise it is summed here.
 */
export function concatBytes(pieces: readonly Uint8Array<ArrayBuffer>[], total?: number): Uint8Array<ArrayBuffer>;
export function concatBytes(pieces: readonly Uint8Array[], total?: number): Uint8Array;
export function concatBytes(pieces: readonly Uint8Array[], total?: number): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  let length = total ?? 0;
  if (total === undefined) for (const piece of pieces) length += piece.byteLength;
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const piece of pieces) {
    joined.set(piece, offset);
    offset += piece.byteLength;
  }
  return joined;
}
