import { createHash } from "node:crypto";
import type { auditLog } from "@tollgate/db";

/** The prev_hash of the first row ever written. */
export const GENESIS_HASH = "0".repeat(64);

/** The columns of an audit row that its hash covers: every column but id and hash, as the schema types them. */
export type AuditHashedFields = Omit<typeof auditLog.$inferSelect, "id" | "hash">;

/**
 * JSON with object keys sorted at every depth: jsonb keeps no key order, so the hash of what was written must
 * equal the hash of what is read back.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/** Hex SHA-256 over the previous row's hash and this row's fields. */
export function auditRowHash(fields: AuditHashedFields): string {
  const covered = [
    fields.prevHash,
    fields.at.toISOString(),
    fields.actorKind,
    fields.actorId,
    fields.actorName,
    fields.sourceAddress,
    fields.action,
    fields.objectType,
    fields.objectId,
    fields.before ?? null,
    fields.after ?? null,
  ];
  return createHash("sha256").update(canonicalJson(covered)).digest("hex");
}
