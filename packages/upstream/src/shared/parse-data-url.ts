/**
 * A `data:<media type>[;parameter...],<data>` URL split into its parts, as written (no case folding, no
 * decoding); null for anything else. Scanned by hand rather than with a regular expression: the payload can
 * be megabytes long. Each adapter applies its own rules to the parts (which media types, base64 or not).
 */
export function parseDataUrl(url: string): { mediaType: string; parameters: string[]; data: string } | null {
  if (!url.startsWith("data:")) return null;
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const [mediaType = "", ...parameters] = url.slice("data:".length, comma).split(";");
  return { mediaType, parameters, data: url.slice(comma + 1) };
}

/** A base64 data URL's media type (trimmed, lower case) and payload; null for anything else. */
export function parseBase64DataUrl(url: string): { mediaType: string; data: string } | null {
  const parsed = parseDataUrl(url);
  if (!parsed || !parsed.parameters.some((parameter) => parameter.trim().toLowerCase() === "base64")) return null;
  return { mediaType: parsed.mediaType.trim().toLowerCase(), data: parsed.data };
}
