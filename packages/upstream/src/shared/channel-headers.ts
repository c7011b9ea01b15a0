/**
 * A channel's extra headers (`config.headers`: e.g. anthropic-beta, OpenRouter's HTTP-Referer), string
 * values only: a value of another type in the stored JSON is left out rather than sent as "[object Object]".
 */
export function channelExtraHeaders(config: Record<string, unknown>): Record<string, string> {
  const extra = config.headers;
  const headers: Record<string, string> = {};
  if (extra && typeof extra === "object") {
    for (const [name, value] of Object.entries(extra)) if (typeof value === "string") headers[name] = value;
  }
  return headers;
}
