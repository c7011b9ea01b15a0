import type { DatabaseHandle } from "@tollgate/db";
import type { SecretBox } from "@tollgate/shared";
import { sql } from "drizzle-orm";
import { configureCounting } from "./accounting/count-tokens";
import type { QuotaLedger } from "./accounting/quota-ledger";
import type { UsageSink } from "./accounting/usage-writer";
import type { SpendAlerts } from "./alerts/spend-alerts";
import type { CachedToken, CachedUser } from "./auth/cached-records";
import type { InvalidKeyLimiter } from "./auth/invalid-key-limiter";
import type { LoadingCache } from "./auth/loading-cache";
import { DatabaseCircuit, defaultProbeIntervalMs } from "./database-circuit";
import { defaultGatewayOptions, type GatewayMetricsHooks, type GatewayOptions } from "./gateway-options";
import { InFlightCalls } from "./in-flight-calls";
import type { ListenerCheck } from "./listener-check";
import type { Logger } from "./logger";
import { collectGatewaySources, createMetricsHooks } from "./metrics/bind-gateway-metrics";
import { createGatewayMetrics, type GatewayMetrics } from "./metrics/gateway-metrics";
import type { IpAllowList } from "./policy/ip-allow-list";
import type { RateLimiter, TokenRateLimiter } from "./policy/rate-limiter-port";
import type { ChannelCatalog, RoutableChannel } from "./routing/channel-catalog";
import type { ChannelHealth } from "./routing/channel-health";
import { createAccountingServices } from "./services/accounting-services";
import { createAlertsServices } from "./services/alerts-services";
import { createAuthServices } from "./services/auth-services";
import { createInvalidationListener } from "./services/invalidation-listener";
import { createInvalidationRouter } from "./services/invalidation-router";
import { type Job, type RunningJobs, startJobs } from "./services/jobs";
import { createPolicyServices } from "./services/policy-services";
import { createRoutingServices } from "./services/routing-services";
import { ENDPOINT_JOBS } from "./endpoint-table";
import type { SettingsCache } from "./settings-cache";

// The options moved to a file of their own; their names stay importable from here.
export { defaultGatewayOptions, type GatewayMetricsHooks, type GatewayOptions } from "./gateway-options";

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
  /** Every periodic task of these services (purges, alerts, pruning, lease renewal, listener check). */
  jobs: readonly Job[];
  /** Jobs whose timer is set: all of them between start() and stop(), none before or after. */
  readonly activeJobs: number;
  /** Subscribes to invalidations, starts the write-behind and the jobs. */
  start(): Promise<void>;
  /** Stops every job, writes what is buffered and closes the subscription (not the database). */
  stop(): Promise<void>;
}

/**
 * Builds the services from one factory per concern (auth caches, accounting, routing, policy, alerts, the
 * invalidation listener and its router) and gathers their jobs into one list that start() starts and stop()
 * stops. Built once per process (or per test): nothing here runs per request.
 */
export function createGatewayServices(input: {
  database: DatabaseHandle;
  secretBox: SecretBox;
  log: Logger;
  options?: Partial<GatewayOptions>;
}): GatewayServices {
  const { database, secretBox, log } = input;
  const options = { ...defaultGatewayOptions, ...input.options };
  configureCounting({ deadlineMs: options.countDeadlineMs });
  const db = database.db;
  const instanceId = crypto.randomUUID();
  const circuit = new DatabaseCircuit(() => db.execute(sql`select 1`), { probeIntervalMs: defaultProbeIntervalMs, log });

  const auth = createAuthServices({ db, circuit, options });
  const routing = createRoutingServices({ database, secretBox, log, instanceId, circuit, options });
  const alerts = createAlertsServices({ db, secretBox, settings: routing.settings, log, options });
  const accounting = createAccountingServices({
    database,
    log,
    instanceId,
    circuit,
    options,
    onTotals(written) {
      auth.applyTotals(written);
      if (written.observations && written.observations.length > 0) alerts.spendAlerts.observe(written.observations);
    },
  });
  const policy = createPolicyServices({ log, options });
  const router = createInvalidationRouter({ instanceId, ...auth, ...routing, leases: accounting.leases });
  const listener = createInvalidationListener({ database, circuit, instanceId, router, log, options });
  const prometheus = createGatewayMetrics();
  const jobs: Job[] = [
    ...auth.jobs,
    ...routing.jobs,
    ...accounting.jobs,
    ...alerts.jobs,
    ...policy.jobs,
    ...listener.jobs,
    // The endpoint modules' own work (the purge of expired stored responses), skipped while the database is away.
    ...ENDPOINT_JOBS.map((job): Job => ({ name: job.name, intervalMs: job.everyMs, run: () => (circuit.isOpen ? undefined : job.run(services)) })),
  ];
  let running: RunningJobs | null = null;

  const services: GatewayServices = {
    database,
    options,
    log,
    tokens: auth.tokens,
    users: auth.users,
    invalidKeys: policy.invalidKeys,
    catalog: routing.catalog,
    settings: routing.settings,
    databaseCircuit: circuit,
    listenerCheck: listener.listenerCheck,
    ledger: accounting.ledger,
    spendAlerts: alerts.spendAlerts,
    rateLimiter: policy.rateLimiter,
    tokenRateLimiter: policy.tokenRateLimiter,
    usage: accounting.usage,
    calls: new InFlightCalls(),
    health: routing.health,
    prometheus,
    metrics: createMetricsHooks(prometheus),
    disableChannel: routing.disableChannel,
    trustedProxies: auth.trustedProxies,
    jobs,
    get activeJobs() {
      return running?.active ?? 0;
    },
    async start() {
      await listener.start();
      accounting.usage.start();
      running = startJobs(jobs, log);
      // Warm the small caches so that the first requests, and /readyz, find them loaded.
      // ...and let the first Redis connection settle, so the first requests are counted where all the others are.
      await Promise.all([routing.warm(), policy.ready()]);
      collectGatewaySources(prometheus, {
        caches: { tokens: auth.tokens, users: auth.users },
        usageQueueDepth: () => accounting.usage.queueDepth,
        usageDroppedLogs: () => accounting.usage.droppedLogs,
        usageDeadLetters: () => accounting.usage.deadLetters,
        channelStateNames: ["cooldown", "probing"],
        channelStates: () => [...routing.health.snapshot()].map(([id, state]) => [String(id), state] as const),
      });
    },
    async stop() {
      running?.stop();
      listener.listenerCheck?.stop();
      circuit.stop();
      await accounting.replayed();
      await accounting.usage.stop();
      await alerts.spendAlerts.stop();
      await accounting.leases.stop();
      await listener.stop();
      await policy.close();
    },
  };
  return services;
}
