import { createHash } from "node:crypto";

/**
 * Fields left out of the key: whether the answer is streamed (whole and streamed answers are kept under
 * the same key, side by side) and who the end user is do not change it. `stream_options` stays in: a
 * replayed stream carries a usage chunk only when the stored one did.
 */
const EXCLUDED = new Set(["stream", "user"]);

/**
 * The body as canonical JSON: object keys sorted at every depth, no whitespace (admission already bounded
 * its depth), `stream` and `user` left out at the top level.
 */
export function canonicalBody(value: Record<string, unknown>): string {
  const keys = Object.keys(value)
    .filter((key) => !EXCLUDED.has(key))
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(",")}}`;
}

/** The cache key: the endpoint, the scope (whose calls share answers), and a SHA-256 of model and canonical body. */
export function responseCacheKey(endpoint: string, scope: string, model: string, body: Record<string, unknown>): string {
  const digest = createHash("sha256").update(model).update("\n").update(canonicalBody(body)).digest("hex");
  return `${endpoint}:${scope}:${digest}`;
}
