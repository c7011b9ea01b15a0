import { type DatabaseHandle, INVALIDATION_CHANNEL, type InvalidationMessage, parseInvalidation } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { QuotaLedger } from "./accounting/quota-ledger";
import { UsageWriter } from "./accounting/usage-writer";
import { type CachedToken, type CachedUser, loadTokenByHash, loadUserById } from "./auth/cached-records";
import { LoadingCache } from "./auth/loading-cache";
import { createIpAllowList, type IpAllowList } from "./policy/ip-allow-list";
import { SlidingWindowRateLimiter } from "./policy/rate-limiter";
import type { Logger } from "./logger";
import { ChannelCatalog } from "./routing/channel-catalog";
import { SettingsCache } from "./settings-cache";

export interface GatewayOptions {
  maxBodyBytes: number;
  /** IPs/CIDRs whose X-Forwarded-For is believed. */
  trustedProxies: string[];
  upstreamTimeoutMs: number;
  usageFlushIntervalMs: number;
  usageBufferMax: number;
}

export const defaultGatewayOptions: GatewayOptions = {
  maxBodyBytes: 16 * 1024 * 1024,
  trustedProxies: [],
  upstreamTimeoutMs: 600_000,
  usageFlushIntervalMs: 1000,
  usageBufferMax: 100_000,
};

/** Everything a request handler needs; built once per process (or per test) around one database. */
export interface GatewayServices {
  database: DatabaseHandle;
  options: GatewayOptions;
  log: Logger;
  tokens: LoadingCache<string, CachedToken>;
  users: LoadingCache<number, CachedUser>;
  catalog: ChannelCatalog;
  settings: SettingsCache;
  ledger: QuotaLedger;
  rateLimiter: SlidingWindowRateLimiter;
  usage: UsageWriter;
  trustedProxies: IpAllowList | null;
  /** Subscribes to invalidations and starts the write-behind timer. */
  start(): Promise<void>;
  /** Writes what is buffered and closes the subscription (not the database). */
  stop(): Promise<void>;
}

export function createGatewayServices(input: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  log: Logger;
  options?: Partial<GatewayOptions>;
}): GatewayServices {
  const { database, log } = input;
  const options = { ...defaultGatewayOptions, ...input.options };
  const db = database.db;
  // id -> key hash of every token seen, so that totals written by id can update the cached row.
  const tokenHashById = new Map<number, string>();
  const tokens = new LoadingCache<string, CachedToken>((hash) => loadTokenByHash(db, hash), {
    maxEntries: 200_000,
    negativeTtlMs: 30_000,
    onLoaded: (hash, token) => tokenHashById.set(token.id, hash),
  });
  const users = new LoadingCache<number, CachedUser>((id) => loadUserById(db, id), {
    maxEntries: 100_000,
    negativeTtlMs: 30_000,
  });
  const catalog = new ChannelCatalog(db, input.secretBox, (message, fields) => log("warn", message, fields));
  const settings = new SettingsCache(db);
  const ledger = new QuotaLedger();
  const usage = new UsageWriter(db, {
    intervalMs: options.usageFlushIntervalMs,
    maxBufferedLogs: options.usageBufferMax,
    log: (message, fields) => log("warn", message, fields),
    onWritten({ tokenDeltas, userDeltas, tokenTotals, userBalances }) {
      ledger.markWritten(tokenDeltas, userDeltas);
      for (const [id, total] of tokenTotals) {
        const hash = tokenHashById.get(id);
        if (hash) tokens.update(hash, (token) => (token.usedQuota = total));
      }
      for (const [id, balance] of userBalances) users.update(id, (user) => (user.balance = balance));
    },
  });
  const rateLimiter = new SlidingWindowRateLimiter();
  let unlisten: (() => Promise<void>) | null = null;
  let pruneTimer: ReturnType<typeof setInterval> | null = null;

  const flushAll = () => {
    tokens.clear();
    users.clear();
    catalog.invalidate();
    settings.invalidate();
  };

  const onInvalidation = (message: InvalidationMessage) => {
    switch (message.table) {
      case "tokens":
        if (message.key_hash) {
          if (message.id !== undefined) tokenHashById.set(message.id, message.key_hash);
          if (message.kind === "usage") tokens.refresh(message.key_hash);
          else tokens.delete(message.key_hash);
        }
        return;
      case "users":
        if (message.id === undefined) return;
        if (message.kind === "usage") users.refresh(message.id);
        else users.delete(message.id);
        return;
      case "channels":
      case "model_prices":
        catalog.invalidate();
        return;
      case "settings":
        settings.invalidate();
        return;
    }
  };

  return {
    database,
    options,
    log,
    tokens,
    users,
    catalog,
    settings,
    ledger,
    rateLimiter,
    usage,
    trustedProxies: options.trustedProxies.length > 0 ? createIpAllowList(options.trustedProxies) : null,
    async start() {
      unlisten = await database.listen(INVALIDATION_CHANNEL, {
        onNotify(payload) {
          const message = parseInvalidation(payload);
          if (message) onInvalidation(message);
        },
        onConnect() {
          // Notifications sent while we were disconnected are lost: start again from the database.
          flushAll();
        },
      });
      usage.start();
      pruneTimer = setInterval(() => rateLimiter.prune(), 60_000);
      pruneTimer.unref?.();
    },
    async stop() {
      if (pruneTimer) clearInterval(pruneTimer);
      await usage.stop();
      if (unlisten) await unlisten().catch(() => {});
      unlisten = null;
    },
  };
}
