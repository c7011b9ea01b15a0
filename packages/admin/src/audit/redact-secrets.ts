/**
 * Field names whose values are secrets or stand for one (hashes of secrets, sealed keys, passwords), or may
 * hold one (a channel's extra upstream headers, an authorization header).
 */
const SECRET_FIELD = /(secret|password|hash|encrypted|sealed|apikey|api_key|headers|authorization|cookie)/i;

export const REDACTED = "[redacted]";

/**
 * A JSON copy of `value` (dates as ISO strings) with every secret-looking field's value replaced by
 * "[redacted]" (a boolean such as `hasPassword` is kept: it says whether, not what).
 */
export function redactSecrets(value: unknown): unknown {
  if (value === undefined) return null;
  return redactJson(JSON.parse(JSON.stringify(value)));
}

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      key,
      SECRET_FIELD.test(key) && item !== null && typeof item !== "boolean" && item !== "" ? REDACTED : redactJson(item),
    ]),
  );
}
