import { type Database, settings } from "@tollgate/db";
import { ReloadableSnapshot } from "./reloadable-snapshot";

/** Settings an admin can change at run time, with their defaults. */
export interface GatewaySettings {
  /** Completion tokens assumed for the quota reservation of a request without max_tokens. */
  reservationDefaultMaxTokens: number;
  /** Days a stored /v1/responses answer is kept for previous_response_id, GET and DELETE. */
  responsesRetentionDays: number;
  /** Percentages of a budget at which a spend alert is raised, unless the token or user sets its own. */
  spendAlertThresholds: number[];
  /** Where spend alerts are POSTed; empty: alerts are console notices only. */
  spendAlertWebhookUrl: string;
  /** Days a request-log row is kept; older ones are purged by the log-retention job. 0: kept forever. */
  requestLogRetentionDays: number;
}

const defaults: GatewaySettings = {
  reservationDefaultMaxTokens: 4096,
  responsesRetentionDays: 30,
  spendAlertThresholds: [50, 80, 100],
  spendAlertWebhookUrl: "",
  requestLogRetentionDays: 90,
};

const keys: Record<string, keyof GatewaySettings> = {
  reservation_default_max_tokens: "reservationDefaultMaxTokens",
  responses_retention_days: "responsesRetentionDays",
  spend_alert_thresholds: "spendAlertThresholds",
  spend_alert_webhook_url: "spendAlertWebhookUrl",
  request_log_retention_days: "requestLogRetentionDays",
};

/**
 * The settings table, loaded whole and kept in memory; a NOTIFY drops it (callers then wait on a new load),
 * and refresh() re-reads it in the background while the current values stay in service (ReloadableSnapshot).
 */
export class SettingsCache extends ReloadableSnapshot<GatewaySettings> {
  constructor(db: Database) {
    super(() => loadSettings(db));
  }
}

/** The settings rows over the defaults; a row of an unknown key, or of a value of the wrong type, is passed over. */
async function loadSettings(db: Database): Promise<GatewaySettings> {
  const rows = await db.select().from(settings);
  const loaded: GatewaySettings = { ...defaults };
  for (const row of rows) {
    const key = keys[row.key];
    if (key && typeof row.value === typeof defaults[key] && Array.isArray(row.value) === Array.isArray(defaults[key])) {
      (loaded as unknown as Record<string, unknown>)[key] = row.value;
    }
  }
  return loaded;
}
