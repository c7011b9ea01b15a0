import type { Database } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { SpendAlerts } from "../alerts/spend-alerts";
import type { GatewayOptions } from "../gateway-options";
import type { Logger } from "../logger";
import type { SettingsCache } from "../settings-cache";
import type { Job } from "./jobs";

/** Spend alerts raised from the write-behind's commits, and the sweep that delivers what is due to the webhook. */
export function createAlertsServices(input: {
  db: Database;
  secretBox: SecretBox;
  settings: SettingsCache;
  log: Logger;
  options: Pick<GatewayOptions, "spendAlerts" | "upstreamAddressPolicy">;
}): { spendAlerts: SpendAlerts; jobs: Job[] } {
  const { db, secretBox, settings, log, options } = input;
  const spendAlerts = new SpendAlerts(db, secretBox, () => settings.get(), log, options.spendAlerts, options.upstreamAddressPolicy);
  return {
    spendAlerts,
    jobs: [{ name: "spend-alert-delivery", intervalMs: spendAlerts.sweepIntervalMs, runAtStart: true, run: () => spendAlerts.deliverDue() }],
  };
}
