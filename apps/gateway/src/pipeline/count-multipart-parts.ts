/** The `boundary` parameter of a multipart Content-Type (quoted or not), or null when there is none. */
export function multipartBoundaryOf(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]{1,200})"|([^;\s"]{1,200}))/i.exec(contentType);
  return match ? (match[1] ?? match[2] ?? null) : null;
}

/**
 * How many parts the body holds, or `cap + 1` as soon as it is known to hold more than `cap` (so the count
 * costs at most that many native searches, whatever the body): each part begins with a `--boundary` delimiter, and the body ends with one
 * more (`--boundary--`). A boundary may not occur inside a part (RFC 2046), so counting delimiters is
 * counting parts; the runtime's parser is only handed a body known to be within the cap.
 */
export function countMultipartParts(bytes: Uint8Array, boundary: string, cap: number): number {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  let delimiters = 0;
  let offset = body.indexOf(delimiter);
  while (offset !== -1) {
    delimiters++;
    // More than cap + 1 delimiters: more than cap parts, whatever follows.
    if (delimiters > cap + 1) return cap + 1;
    offset = body.indexOf(delimiter, offset + delimiter.byteLength);
  }
  // The last delimiter closes the body rather than opening a part.
  return Math.max(0, delimiters - 1);
}
