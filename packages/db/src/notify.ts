/** The one NOTIFY channel the triggers in drizzle/0001_notify_triggers.sql write to. */
export const INVALIDATION_CHANNEL = "tollgate_invalidate";

export type InvalidationTable = "tokens" | "users" | "channels" | "model_prices" | "settings";

/** What a trigger sends: ids and key hashes only, never a secret. */
export interface InvalidationMessage {
  table: InvalidationTable;
  op: "insert" | "update" | "delete";
  /** `usage` when only spend counters moved; `change` otherwise. */
  kind: "usage" | "change";
  id?: number;
  key_hash?: string;
  model?: string;
  key?: string;
}

export function parseInvalidation(payload: string): InvalidationMessage | null {
  try {
    const message = JSON.parse(payload) as InvalidationMessage;
    return typeof message?.table === "string" ? message : null;
  } catch {
    return null;
  }
}
