/** A `data:<media type>;base64,<data>` URL split into its parts; null for anything else (or a non-base64 data URL). */
export function parseBase64DataUrl(url: string): { mediaType: string; data: string } | null {
  if (!url.startsWith("data:")) return null;
  // Scanned by hand rather than with a regular expression: the payload can be megabytes long.
  const comma = url.indexOf(",");
  if (comma < 0) return null;
  const [mediaType = "", ...parameters] = url.slice("data:".length, comma).split(";");
  if (!parameters.some((parameter) => parameter.trim().toLowerCase() === "base64")) return null;
  return { mediaType: mediaType.trim().toLowerCase(), data: url.slice(comma + 1) };
}
