/** The one NOTIFY channel the triggers of drizzle/0001_notify_triggers.sql write to (the function body is in 0010). */
export const INVALIDATION_CHANNEL = "tollgate_invalidate";

/**
 * Tables the triggers report, plus `channel_health`, which gateways send each other (cool-downs), and
 * `ping`, a gateway's check that its own LISTEN connection still delivers (every other instance ignores it).
 */
export type InvalidationTable = "tokens" | "users" | "channels" | "model_prices" | "settings" | "channel_health" | "ping" | "mcp_servers";

/** What a trigger sends: ids and key hashes only, never a secret. */
export interface InvalidationMessage {
  table: InvalidationTable;
  op: "insert" | "update" | "delete";
  /** `usage` when only spend counters moved; `change` otherwise; `ping` for a listener check. */
  kind: "usage" | "change" | "ping";
  id?: number;
  key_hash?: string;
  model?: string;
  key?: string;
  /** channel_health only. */
  state?: "cooldown" | "healthy";
  until?: number;
  /** channel_health and ping: the sending instance (it ignores its own health broadcast, and hears only its own pings). */
  origin?: string;
}

/**
 * A listener check: the sender NOTIFYs this and expects it back on its own LISTEN connection. `id` numbers the
 * checks, so that a late echo of an earlier one is not taken for the current one.
 */
export function listenerPingPayload(origin: string, sequence: number): string {
  return JSON.stringify({ table: "ping", op: "update", kind: "ping", id: sequence, origin } satisfies InvalidationMessage);
}

export function parseInvalidation(payload: string): InvalidationMessage | null {
  try {
    const message = JSON.parse(payload) as InvalidationMessage;
    return typeof message?.table === "string" ? message : null;
  } catch {
    return null;
  }
}
