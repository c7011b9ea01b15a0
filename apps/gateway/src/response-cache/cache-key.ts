import { createHash } from "node:crypto";

/** Fields left out of the key: how the answer is delivered and who the end user is do not change it. */
const EXCLUDED = new Set(["stream", "stream_options", "user"]);

/**
 * The body as canonical JSON: object keys sorted at every depth, no whitespace (admission already bounded
 * its depth), `stream`, `stream_options` and `user` left out at the top level.
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
