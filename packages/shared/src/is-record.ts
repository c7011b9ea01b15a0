/** A JSON object (not null, not an array): what every reader of an untyped request or answer body checks first. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
