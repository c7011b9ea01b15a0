import type { DatabaseHandle } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { sql } from "drizzle-orm";
import type { DatabaseCircuit } from "../database-circuit";
import type { GatewayOptions } from "../gateway-options";
import type { Logger } from "../logger";
import { ChannelCatalog, type RoutableChannel } from "../routing/channel-catalog";
import { ChannelHealth, type HealthChange } from "../routing/channel-health";
import { markChannelAutoDisabled } from "../routing/channel-status";
import { SettingsCache } from "../settings-cache";
import type { Job } from "./jobs";

/** What routing reads: the channel catalog, the settings, each channel's health; and the one channel write. */
export interface RoutingServices {
  catalog: ChannelCatalog;
  settings: SettingsCache;
  health: ChannelHealth;
  /** Marks a channel auto_disabled (its key was rejected); every instance sees it through NOTIFY. */
  disableChannel(channel: RoutableChannel, reason: string): void;
  /** Loads the two small caches, so that the first requests and /readyz find them loaded. */
  warm(): Promise<unknown>;
  jobs: Job[];
}

export function createRoutingServices(input: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  log: Logger;
  instanceId: string;
  circuit: DatabaseCircuit;
  options: Pick<GatewayOptions, "upstreamAddressPolicy" | "channelHealth" | "cacheMaxAgeMs">;
}): RoutingServices {
  const { database, log, instanceId, circuit, options } = input;
  const db = database.db;
  const catalog = new ChannelCatalog(db, input.secretBox, (message, fields) => log("warn", message, fields), options.upstreamAddressPolicy);
  const settings = new SettingsCache(db);
  const broadcast = (payload: Record<string, unknown>) => {
    const text = JSON.stringify({ ...payload, origin: instanceId });
    db.execute(sql`select pg_notify('tollgate_invalidate', ${text})`).catch((error) =>
      log("warn", "could not broadcast a channel health change", { error: String(error) }),
    );
  };
  const health = new ChannelHealth(options.channelHealth, (change: HealthChange) => {
    log("warn", change.state === "cooldown" ? "channel cooling down after repeated failures" : "channel healthy again", {
      channel: change.channelId,
    });
    broadcast({ table: "channel_health", op: "update", kind: "change", id: change.channelId, ...change });
  });
  const disabling = new Set<number>();
  return {
    catalog,
    settings,
    health,
    disableChannel(channel, reason) {
      if (disabling.has(channel.id)) return;
      disabling.add(channel.id);
      log("error", "channel disabled: the upstream rejected its key", { channel: channel.id });
      markChannelAutoDisabled(db, channel.id, reason).then(
        () => disabling.delete(channel.id),
        (error) => {
          disabling.delete(channel.id);
          log("error", "could not disable channel", { channel: channel.id, error: String(error) });
        },
      );
    },
    warm: () => Promise.all([catalog.get(), settings.get()]),
    jobs: [
      {
        // Tokens and users re-validate on use; the two small caches are re-read whole once per max age.
        name: "catalog-and-settings-revalidate",
        intervalMs: options.cacheMaxAgeMs,
        run() {
          if (circuit.isOpen) return;
          void catalog.refresh();
          void settings.refresh();
        },
      },
    ],
  };
}
