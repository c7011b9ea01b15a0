/**
 * A client's value as text for an error message: strings, numbers and booleans as they are, anything else
 * by its kind. Never String(value): JSON.parse makes `{"toString":1}` an object whose String() throws a
 * TypeError, which would turn a client's mistake into a 500.
 */
export function clientValueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return `${value}`;
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  return Array.isArray(value) ? "an array" : "an object";
}
