import {
  channels,
  type DatabaseHandle,
  INVALIDATION_CHANNEL,
  type InvalidationMessage,
  listenerPingPayload,
  parseInvalidation,
} from "@tollgate/db";
import { BudgetWindows, DEFAULT_UPSTREAM_ADDRESS_POLICY, type SecretBox, type UpstreamAddressPolicy } from "@tollgate/shared";
import { defaultOutageAllowance, OutageAllowances, type OutageAllowanceOptions } from "./accounting/outage-allowance";
import { configureCounting } from "./accounting/count-tokens";
import { DEFAULT_UPSTREAM_MAX_BODY_BYTES, DEFAULT_UPSTREAM_MAX_EVENT_BYTES } from "@tollgate/upstream";
import { QuotaLedger } from "./accounting/quota-ledger";
import { defaultLeaseOptions, LeaseBook, type LeaseOptions } from "./accounting/quota-leases";
import { replayOrphanSpools } from "./accounting/spool-replay";
import { SpooledUsageSink } from "./accounting/spooled-usage-sink";
import { UsageSpool } from "./accounting/usage-spool";
import { type UsageSink, UsageWriter, type WrittenUsage } from "./accounting/usage-writer";
import { InFlightCalls } from "./in-flight-calls";
import { ThreadedUsageWriter, type UsageWorkerSettings } from "./accounting/usage-writer-thread";
import { type CachedToken, type CachedUser, loadTokenByHash, loadUserById } from "./auth/cached-records";
import { CoarseClock } from "./auth/coarse-clock";
import { InvalidKeyLimiter } from "./auth/invalid-key-limiter";
import { LoadingCache } from "./auth/loading-cache";
import { DatabaseCircuit, defaultProbeIntervalMs } from "./database-circuit";
import { defaultEchoTimeoutMs, ListenerCheck } from "./listener-check";
import { createIpAllowList, type IpAllowList } from "./policy/ip-allow-list";
import { SlidingWindowRateLimiter } from "./policy/rate-limiter";
import type { RateLimiter, TokenRateLimiter } from "./policy/rate-limiter-port";
import { RedisRateLimiter } from "./policy/redis-rate-limiter";
import { SlidingWindowTokenLimiter } from "./policy/token-rate-limiter";
import { collectGatewaySources, createMetricsHooks } from "./metrics/bind-gateway-metrics";
import { createGatewayMetrics, type GatewayMetrics } from "./metrics/gateway-metrics";
import type { Logger } from "./logger";
import { eq, sql } from "drizzle-orm";
import { ChannelCatalog, type RoutableChannel } from "./routing/channel-catalog";
import { ChannelHealth, defaultChannelHealthOptions, type ChannelHealthOptions, type HealthChange } from "./routing/channel-health";
import { SettingsCache } from "./settings-cache";
import { defaultSpendAlertOptions, type SpendAlertOptions, SpendAlerts } from "./alerts/spend-alerts";
import { ENDPOINT_JOBS } from "./endpoint-table";

export interface GatewayOptions {
  maxBodyBytes: number;
  /** IPs/CIDRs whose X-Forwarded-For is believed. */
  trustedProxies: string[];
  /** Time allowed for an upstream's whole non-streamed exchange, headers and body (a channel may allow its headers longer). */
  upstreamTimeoutMs: number;
  /** The most a whole (non-streamed) upstream answer may weigh, decoded; past it: 502 upstream_response_too_large. */
  upstreamMaxBodyBytes: number;
  /** The most one event of an upstream stream may weigh; past it the stream ends with an error event. */
  upstreamMaxEventBytes: number;
  usageFlushIntervalMs: number;
  usageBufferMax: number;
  /** Run the write-behind on a worker thread of its own (off the event loop that serves requests), on either database. */
  usageWriterThread: boolean;
  /** Channels tried for one request before giving up (failover). */
  maxUpstreamAttempts: number;
  /** Idle time allowed between two chunks of a stream, unless the channel sets its own. */
  streamIdleTimeoutMs: number;
  channelHealth: ChannelHealthOptions;
  /** One JSON log line per /v1 request (request id, token id, model, status, timings; never a secret). */
  logRequests: boolean;
  quotaLeases: LeaseOptions;
  /** What each token with a limit may spend while the database cannot grant quota leases. */
  outageAllowance: OutageAllowanceOptions;
  /** redis://...: requests- and tokens-per-minute limits shared by every instance; unset: counted per process. */
  redisUrl?: string;
  /** Prefix of the rate-limit keys on Redis (separate deployments sharing one Redis use different ones). */
  redisKeyPrefix?: string;
  /** Bearer token that opens GET /metrics from anywhere. */
  metricsToken?: string;
  /** Addresses and ranges that may scrape GET /metrics without the token. */
  metricsAllowedIps: string[];
  /** Folder of the durable usage spool; null keeps usage in memory only (tests that do not crash). */
  usageSpoolDir: string | null;
  /** How often the spool is fsync'd. */
  usageSpoolSyncMs: number;
  /** /readyz turns 503 once usage writes have failed for this long. */
  usageWriteStallMs: number;
  /** Cached tokens, users, channels and settings are re-validated after this age. */
  cacheMaxAgeMs: number;
  /** Period of the LISTEN connection's self-check (a NOTIFY to itself). */
  listenerCheckIntervalMs: number;
  /** Time allowed to receive a whole /v1 request body. */
  bodyReadTimeoutMs: number;
  /** Invalid API keys one client address may present per minute before its unknown keys get 429 unchecked; 0: no limit. */
  invalidKeysPerMinute: number;
  /**
   * Epoch ms for budget periods (which period a call is admitted in, and the reset header): the system
   * clock, read once per call that has a period; tests inject one they control to stand at a boundary.
   */
  clock: () => number;
  spendAlerts: SpendAlertOptions;
  /** Which hosts channels and the spend-alert webhook may be sent to (UPSTREAM_ALLOW_PRIVATE_NETWORKS). */
  upstreamAddressPolicy: UpstreamAddressPolicy;
  /**
   * Time a large local token count gets on the counting worker; past it the count is unavailable and the
   * call is billed its reservation (count_tokens answers the linear estimate). One worker per process: the
   * gateway built last sets it.
   */
  countDeadlineMs: number;
}

/** Hooks for the Prometheus metrics; absent in tests that do not look at them. */
export interface GatewayMetricsHooks {
  retry(channelId: number): void;
  upstreamError(channelId: number, status: string): void;
}

export const defaultGatewayOptions: GatewayOptions = {
  maxBodyBytes: 16 * 1024 * 1024,
  trustedProxies: [],
  upstreamTimeoutMs: 600_000,
  upstreamMaxBodyBytes: DEFAULT_UPSTREAM_MAX_BODY_BYTES,
  upstreamMaxEventBytes: DEFAULT_UPSTREAM_MAX_EVENT_BYTES,
  usageFlushIntervalMs: 1000,
  usageBufferMax: 100_000,
  usageWriterThread: true,
  maxUpstreamAttempts: 3,
  streamIdleTimeoutMs: 120_000,
  channelHealth: defaultChannelHealthOptions,
  logRequests: true,
  quotaLeases: defaultLeaseOptions,
  outageAllowance: defaultOutageAllowance,
  metricsAllowedIps: ["127.0.0.1", "::1"],
  usageSpoolDir: null,
  usageSpoolSyncMs: 50,
  usageWriteStallMs: 30_000,
  cacheMaxAgeMs: 60_000,
  listenerCheckIntervalMs: 10_000,
  bodyReadTimeoutMs: 30_000,
  invalidKeysPerMinute: 30,
  clock: Date.now,
  spendAlerts: defaultSpendAlertOptions,
  upstreamAddressPolicy: DEFAULT_UPSTREAM_ADDRESS_POLICY,
  countDeadlineMs: 2_000,
};

/**
 * How the write-behind's thread reaches the database: a pool of its own on Postgres, the PGlite thread's
 * port when embedded; null when it cannot (the writer then runs on this thread).
 */
function usageThreadDatabase(database: DatabaseHandle): UsageWorkerSettings["database"] | null {
  if (database.kind === "postgres" && database.url) return { url: database.url, poolSize: 2 };
  return database.share ? { shared: database.share() } : null;
}

/** Everything a request handler needs; built once per process (or per test) around one database. */
export interface GatewayServices {
  database: DatabaseHandle;
  options: GatewayOptions;
  log: Logger;
  tokens: LoadingCache<string, CachedToken>;
  users: LoadingCache<number, CachedUser>;
  /** Invalid keys per client address: past the limit, unknown keys are refused without a query. */
  invalidKeys: InvalidKeyLimiter;
  catalog: ChannelCatalog;
  settings: SettingsCache;
  /** Open while the database is known to be unreachable: quota leases and cache misses then fail fast (503). */
  databaseCircuit: DatabaseCircuit;
  /** The LISTEN connection's self-check; null on embedded PGlite (no connection that could stall). */
  listenerCheck: ListenerCheck | null;
  ledger: QuotaLedger;
  /** Spend alerts raised from the write-behind's commits and delivered to the webhook. */
  spendAlerts: SpendAlerts;
  rateLimiter: RateLimiter;
  /** Tokens per minute per token: checked on admission, fed each finished request's usage. */
  tokenRateLimiter: TokenRateLimiter;
  /** Prometheus metrics (GET /metrics). */
  prometheus: GatewayMetrics;
  usage: UsageSink;
  /** /v1 calls started and not yet accounted (a shutdown waits for them). */
  calls: InFlightCalls;
  health: ChannelHealth;
  metrics: GatewayMetricsHooks | null;
  /** Marks a channel auto_disabled (its key was rejected); every instance sees it through NOTIFY. */
  disableChannel(channel: RoutableChannel, reason: string): void;
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
  configureCounting({ deadlineMs: options.countDeadlineMs });
  const db = database.db;
  // id -> key hash of every token seen, so that totals written by id can update the cached row.
  const tokenHashById = new Map<number, string>();
  const circuit = new DatabaseCircuit(() => db.execute(sql`select 1`), { probeIntervalMs: defaultProbeIntervalMs, log });
  // Cache ages are told by a clock read from memory: the warm path compares two numbers, and reads no system clock.
  const clock = new CoarseClock();
  // Unknown keys are remembered apart from the tokens (a flood of them evicts only older unknown keys), for
  // 30 s or until a NOTIFY says a token was created or rolled under that hash, on every instance at once.
  const tokens = new LoadingCache<string, CachedToken>((hash) => circuit.run(() => loadTokenByHash(db, hash)), {
    maxEntries: 200_000,
    maxAbsentEntries: 100_000,
    negativeTtlMs: 30_000,
    maxAgeMs: options.cacheMaxAgeMs,
    now: clock.now,
    onLoaded: (hash, token) => tokenHashById.set(token.id, hash),
  });
  const users = new LoadingCache<number, CachedUser>((id) => circuit.run(() => loadUserById(db, id)), {
    maxEntries: 100_000,
    negativeTtlMs: 30_000,
    maxAgeMs: options.cacheMaxAgeMs,
    now: clock.now,
  });
  const catalog = new ChannelCatalog(db, input.secretBox, (message, fields) => log("warn", message, fields), options.upstreamAddressPolicy);
  const settings = new SettingsCache(db);
  const spendAlerts = new SpendAlerts(db, input.secretBox, () => settings.get(), log, options.spendAlerts, options.upstreamAddressPolicy);
  const instanceId = crypto.randomUUID();
  const leases = new LeaseBook(db, instanceId, (message, fields) => log("warn", message, fields), options.quotaLeases, circuit);
  const ledger = new QuotaLedger(leases, new BudgetWindows(), options.clock, new OutageAllowances(options.outageAllowance));
  const spool = new UsageSpool({ dir: options.usageSpoolDir, spoolId: instanceId, syncMs: options.usageSpoolSyncMs, log });
  /** Caches take the totals a commit returned (this process's writes, and replays of other spools). */
  const applyTotals = ({ tokenTotals, userBalances, tokenPeriods, userPeriods, userTotals, observations }: WrittenUsage) => {
    for (const [id, total] of tokenTotals) {
      const hash = tokenHashById.get(id);
      if (hash) tokens.update(hash, (token) => (token.usedQuota = total));
    }
    for (const [id, period] of tokenPeriods ?? []) {
      const hash = tokenHashById.get(id);
      if (hash) tokens.update(hash, (token) => Object.assign(token, period));
    }
    for (const [id, balance] of userBalances) users.update(id, (user) => (user.balance = balance));
    for (const [id, total] of userTotals ?? []) users.update(id, (user) => (user.usedTotal = total));
    for (const [id, period] of userPeriods ?? []) users.update(id, (user) => Object.assign(user, period));
    if (observations && observations.length > 0) spendAlerts.observe(observations);
  };
  const onWritten = (written: WrittenUsage) => {
    const { tokenDeltas, userDeltas, leaseRows } = written;
    spool.committed(written.spoolSeq);
    ledger.markWritten(tokenDeltas, userDeltas, written.subjectDeltas ?? new Map(), leaseRows);
    applyTotals(written);
  };
  // Settings of either writer that can cross to the worker thread (callbacks cannot). PGlite's WebAssembly
  // memory grows to fit the largest statement it has run and never shrinks: its inserts stay small.
  const batching = {
    intervalMs: options.usageFlushIntervalMs,
    maxBufferedLogs: options.usageBufferMax,
    instanceId,
    ...(database.kind === "pglite" ? { rowsPerInsert: 100 } : {}),
  };
  const inThreadWriter = () =>
    new UsageWriter(db, {
      ...batching,
      log: (message, fields) => log("warn", message, fields),
      onWritten,
      // Only if the thread is off or died: PGlite's inserts then run on this thread, in slices between requests.
      ...(database.kind === "pglite" ? { yieldBetweenInserts: true } : {}),
    });
  const threadDatabase = options.usageWriterThread ? usageThreadDatabase(database) : null;
  const writer: UsageSink = threadDatabase
    ? new ThreadedUsageWriter({ settings: { database: threadDatabase, ...batching }, onWritten, log, fallback: inThreadWriter })
    : inThreadWriter();
  const usage = new SpooledUsageSink(writer, spool);
  const calls = new InFlightCalls();
  let replayTimer: ReturnType<typeof setInterval> | null = null;
  let replaying: Promise<number> | null = null;
  const spoolDir = options.usageSpoolDir;
  /** Spools left by processes that are gone (on this folder): written now, and checked again every 30 s. */
  const replaySpools = () => {
    if (!spoolDir || replaying) return replaying;
    replaying = replayOrphanSpools({
      db,
      dir: spoolDir,
      ownSpoolId: instanceId,
      rowsPerInsert: batching.rowsPerInsert ?? 5000,
      log: (level, message, fields) => log(level, message, fields),
      onWritten: applyTotals,
    }).finally(() => {
      replaying = null;
    });
    return replaying;
  };
  const invalidKeys = new InvalidKeyLimiter({ perMinute: options.invalidKeysPerMinute });
  const localLimiter = new SlidingWindowRateLimiter();
  const redisLimiter = options.redisUrl ? new RedisRateLimiter({ url: options.redisUrl, log, keyPrefix: options.redisKeyPrefix }) : null;
  const rateLimiter: RateLimiter = redisLimiter ?? localLimiter;
  const localTokenLimiter = new SlidingWindowTokenLimiter();
  const tokenRateLimiter: TokenRateLimiter = redisLimiter?.tokens ?? localTokenLimiter;
  const prometheus = createGatewayMetrics();
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
  let unlisten: (() => Promise<void>) | null = null;
  let pruneTimer: ReturnType<typeof setInterval> | null = null;
  let revalidateTimer: ReturnType<typeof setInterval> | null = null;
  const jobTimers: Array<ReturnType<typeof setInterval>> = [];
  const { reconnectListeners } = database;
  const listenerCheck = reconnectListeners
    ? new ListenerCheck({
        intervalMs: options.listenerCheckIntervalMs,
        echoTimeoutMs: defaultEchoTimeoutMs(options.listenerCheckIntervalMs),
        send: (sequence) =>
          circuit.run(() => db.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${listenerPingPayload(instanceId, sequence)})`), [20]),
        reconnect: () => reconnectListeners.call(database),
        log,
      })
    : null;

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
          if (message.op === "insert") tokens.forgetAbsent(message.key_hash);
          else if (message.kind === "usage") tokens.refresh(message.key_hash);
          else {
            tokens.delete(message.key_hash);
            if (message.id !== undefined) leases.forgetRefusal(`token:${message.id}`);
          }
        }
        return;
      case "users":
        if (message.id === undefined) return;
        if (message.op === "insert") users.forgetAbsent(message.id);
        else if (message.kind === "usage") users.refresh(message.id);
        else {
          users.delete(message.id);
          leases.forgetRefusal(`user:${message.id}`);
          leases.forgetRefusal(`budget:${message.id}`);
        }
        return;
      case "channels":
      case "model_prices":
        catalog.invalidate();
        return;
      case "settings":
        settings.invalidate();
        return;
      case "ping":
        if (message.origin === instanceId && message.id !== undefined) listenerCheck?.heard(message.id);
        return;
      case "channel_health":
        if (message.origin === instanceId || message.id === undefined) return;
        if (message.state === "healthy") health.apply({ channelId: message.id, state: "healthy" });
        else if (message.state === "cooldown" && message.until) health.apply({ channelId: message.id, state: "cooldown", until: message.until });
        return;
    }
  };

  const services: GatewayServices = {
    database,
    options,
    log,
    tokens,
    users,
    invalidKeys,
    catalog,
    settings,
    databaseCircuit: circuit,
    listenerCheck,
    ledger,
    spendAlerts,
    rateLimiter,
    tokenRateLimiter,
    usage,
    calls,
    health,
    prometheus,
    metrics: createMetricsHooks(prometheus),
    disableChannel(channel, reason) {
      if (disabling.has(channel.id)) return;
      disabling.add(channel.id);
      log("error", "channel disabled: the upstream rejected its key", { channel: channel.id });
      db.update(channels)
        .set({ status: "auto_disabled", statusReason: reason, updatedAt: new Date() })
        .where(eq(channels.id, channel.id))
        .then(
          () => disabling.delete(channel.id),
          (error) => {
            disabling.delete(channel.id);
            log("error", "could not disable channel", { channel: channel.id, error: String(error) });
          },
        );
    },
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
      leases.start();
      spendAlerts.start();
      if (spoolDir) {
        void replaySpools();
        replayTimer = setInterval(() => void replaySpools(), 30_000);
        replayTimer.unref?.();
      }
      // Warm the small caches so that the first requests, and /readyz, find them loaded.
      // ...and let the first Redis connection settle, so the first requests are counted where all the others are.
      await Promise.all([catalog.get(), settings.get(), redisLimiter?.ready()]);
      pruneTimer = setInterval(() => {
        localLimiter.prune();
        localTokenLimiter.prune();
        invalidKeys.prune();
      }, 60_000);
      // Tokens and users re-validate on use; the two small caches are re-read whole once per max age.
      revalidateTimer = setInterval(() => {
        if (circuit.isOpen) return;
        void catalog.refresh();
        void settings.refresh();
      }, options.cacheMaxAgeMs);
      revalidateTimer.unref?.();
      // The endpoint modules' own work (the purge of expired stored responses).
      for (const job of ENDPOINT_JOBS) {
        const timer = setInterval(() => {
          if (circuit.isOpen) return;
          job.run(services).catch((error) => log("warn", `background job failed: ${job.name}`, { error: String(error) }));
        }, job.everyMs);
        timer.unref?.();
        jobTimers.push(timer);
      }
      listenerCheck?.start();
      collectGatewaySources(prometheus, {
        caches: { tokens, users },
        usageQueueDepth: () => usage.queueDepth,
        usageDroppedLogs: () => usage.droppedLogs,
        usageDeadLetters: () => usage.deadLetters,
        channelStateNames: ["cooldown", "probing"],
        channelStates: () => [...health.snapshot()].map(([id, state]) => [String(id), state] as const),
      });
      pruneTimer.unref?.();
    },
    async stop() {
      if (pruneTimer) clearInterval(pruneTimer);
      if (revalidateTimer) clearInterval(revalidateTimer);
      for (const timer of jobTimers.splice(0)) clearInterval(timer);
      listenerCheck?.stop();
      circuit.stop();
      clock.stop();
      if (replayTimer) clearInterval(replayTimer);
      await replaying?.catch(() => {});
      await usage.stop();
      await spendAlerts.stop();
      await leases.stop();
      if (unlisten) await unlisten().catch(() => {});
      await redisLimiter?.close();
      unlisten = null;
    },
  };
  return services;
}
