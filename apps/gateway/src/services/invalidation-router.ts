import type { InvalidationMessage } from "@tollgate/db";
import type { LeaseBook, LeaseSubject } from "../accounting/quota-leases";
import type { CachedTeam, CachedToken, CachedUser } from "../auth/cached-records";
import type { LoadingCache } from "../auth/loading-cache";
import type { ChannelCatalog } from "../routing/channel-catalog";
import type { McpDirectory } from "../mcp/mcp-directory";
import type { ChannelHealth } from "../routing/channel-health";
import type { SettingsCache } from "../settings-cache";

type Evicting = "forgetAbsent" | "refresh" | "delete" | "clear";

/** What a NOTIFY can reach: every cache of this instance, the refusals its leases remember, and channel health. */
export interface InvalidationTargets {
  /** This instance: it ignores its own channel health broadcasts (it applied them already). */
  instanceId: string;
  tokens: Pick<LoadingCache<string, CachedToken>, Evicting>;
  users: Pick<LoadingCache<number, CachedUser>, Evicting>;
  teams: Pick<LoadingCache<number, CachedTeam>, Evicting>;
  /** id -> key hash of every token seen; a NOTIFY that names both teaches it a pair. */
  tokenHashById: Map<number, string>;
  catalog: Pick<ChannelCatalog, "invalidate">;
  settings: Pick<SettingsCache, "invalidate">;
  leases: Pick<LeaseBook, "forgetRefusal">;
  health: Pick<ChannelHealth, "apply">;
  /** The registered MCP servers (absent where no MCP gateway is built). */
  mcp?: Pick<McpDirectory, "invalidate">;
}

export interface InvalidationRouter {
  /** One NOTIFY payload, parsed: evicts (or refreshes) what it names. */
  route(message: InvalidationMessage): void;
  /** Every cache, after the listener reconnected (what was sent meanwhile is lost): start again from the database. */
  flushAll(): void;
}

/** Which caches a change in which table evicts; the one place that knows. */
export function createInvalidationRouter(targets: InvalidationTargets): InvalidationRouter {
  const { instanceId, tokens, users, teams, tokenHashById, catalog, settings, leases, health, mcp } = targets;
  /**
   * A cached row's notification: its insert forgets a cached absence, a write of its spend alone refreshes it
   * in the background, any other write evicts it and forgets the refusals its leases remember.
   */
  function routeRow<Key>(cache: Pick<LoadingCache<Key, unknown>, Evicting>, key: Key, message: InvalidationMessage, refusals: LeaseSubject[]): void {
    if (message.op === "insert") cache.forgetAbsent(key);
    else if (message.kind === "usage") cache.refresh(key);
    else {
      cache.delete(key);
      for (const refusal of refusals) leases.forgetRefusal(refusal);
    }
  }
  return {
    route(message) {
      switch (message.table) {
        case "tokens":
          if (message.key_hash) {
            if (message.id !== undefined) tokenHashById.set(message.id, message.key_hash);
            routeRow(tokens, message.key_hash, message, message.id === undefined ? [] : [`token:${message.id}`]);
          }
          return;
        case "users":
          if (message.id !== undefined) routeRow(users, message.id, message, [`user:${message.id}`, `budget:${message.id}`]);
          return;
        case "teams":
          if (message.id !== undefined) routeRow(teams, message.id, message, [`team:${message.id}`]);
          return;
        case "channels":
        case "model_prices":
          catalog.invalidate();
          return;
        case "settings":
          settings.invalidate();
          return;
        case "mcp_servers":
          mcp?.invalidate();
          return;
        case "channel_health":
          if (message.origin === instanceId || message.id === undefined) return;
          if (message.state === "healthy") health.apply({ channelId: message.id, state: "healthy" });
          else if (message.state === "cooldown" && message.until) health.apply({ channelId: message.id, state: "cooldown", until: message.until });
          return;
      }
    },
    flushAll() {
      tokens.clear();
      users.clear();
      teams.clear();
      catalog.invalidate();
      settings.invalidate();
      mcp?.invalidate();
    },
  };
}
