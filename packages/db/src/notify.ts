/** The one NOTIFY channel the triggers in drizzle/0001_notify_triggers.sql write to. */
export const INVALIDATION_CHANNEL = "tollgate_invalidate";

/** Tables the triggers report, plus `channel_health`, which gateways send each other (cool-downs). */
export type InvalidationTable = "tokens" | "users" | "channels" | "model_prices" | "settings" | "channel_health";

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
  /** channel_health only. */
  state?: "cooldown" | "healthy";
  until?: number;
  /** channel_health only: the sending instance, so it can ignore its own broadcast. */
  origin?: string;
}

export function parseInvalidation(payload: string): InvalidationMessage | null {
  try {
    const message = JSON.parse(payload) as InvalidationMessage;
    return typeof message?.table === "string" ? message : null;
  } catch {
    return null;
  }
}
