import type { DatabaseHandle } from "@tollgate/db";
import { configureCounting } from "@tollgate/gateway/accounting/count-tokens";
import { circuitFor } from "@tollgate/gateway/database-circuit";
import { ENDPOINT_JOBS } from "@tollgate/gateway/endpoint-table";
import { defaultGatewayOptions, type GatewayOptions } from "@tollgate/gateway/gateway-options";
import type { GatewayServices } from "@tollgate/gateway/gateway-services";
import { InFlightCalls } from "@tollgate/gateway/in-flight-calls";
import type { Logger } from "@tollgate/gateway/logger";
import { collectGatewaySources, createMetricsHooks } from "@tollgate/gateway/metrics/bind-gateway-metrics";
import { createGatewayMetrics } from "@tollgate/gateway/metrics/gateway-metrics";
import { createAccountingServices } from "@tollgate/gateway/services/accounting-services";
import { createAlertsServices } from "@tollgate/gateway/services/alerts-services";
import { createAuthServices } from "@tollgate/gateway/services/auth-services";
import { createInvalidationListener } from "@tollgate/gateway/services/invalidation-listener";
import { createInvalidationRouter } from "@tollgate/gateway/services/invalidation-router";
import { createMcpServices } from "@tollgate/gateway/mcp/mcp-services";
import { type Job, type RunningJobs, startJobs } from "@tollgate/gateway/services/jobs";
import { createLogRetentionServices } from "@tollgate/gateway/services/log-retention-services";
import { createPolicyServices } from "@tollgate/gateway/services/policy-services";
import { createRoutingServices } from "@tollgate/gateway/services/routing-services";
import type { SecretBox } from "@tollgate/shared";
import { localResponseCacheStore, redisResponseCacheStore } from "@tollgate/gateway/response-cache/response-cache-store";

/**
 * The composition root of the gateway's services: builds them from one factory per concern (auth caches, accounting, routing, policy, alerts, the
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
  const circuit = circuitFor(db, log);

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
  const mcp = createMcpServices({ database, secretBox, log, options });
  const router = createInvalidationRouter({ instanceId, ...auth, ...routing, leases: accounting.leases, mcp: mcp.directory });
  const listener = createInvalidationListener({ database, circuit, instanceId, router, log, options });
  const prometheus = createGatewayMetrics();
  const logRetention = createLogRetentionServices({ db, settings: routing.settings, circuit, log });
  const responseCache = {
    store: options.redisUrl
      ? redisResponseCacheStore({ url: options.redisUrl, keyPrefix: `${options.redisKeyPrefix ?? "tollgate:"}cache:`, log })
      : localResponseCacheStore(options.responseCache),
    maxEntryBytes: options.responseCache.maxEntryBytes,
  };
  const jobs: Job[] = [
    ...auth.jobs,
    ...routing.jobs,
    ...accounting.jobs,
    ...alerts.jobs,
    ...policy.jobs,
    ...listener.jobs,
    ...mcp.jobs,
    ...logRetention.jobs,
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
    teams: auth.teams,
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
    mcp,
    // Set by start() when an OTLP endpoint is configured: the OpenTelemetry SDK is loaded only then (about
    // 240 modules and 20 MB a gateway without tracing never holds).
    tracing: null,
    responseCache,
    jobs,
    get activeJobs() {
      return running?.active ?? 0;
    },
    async start() {
      if (options.tracing) services.tracing = (await import("@tollgate/gateway/tracing/otel-tracing")).createOtelTracing(options.tracing);
      await listener.start();
      accounting.usage.start();
      running = startJobs(jobs, log);
      // Warm the small caches so that the first requests, and /readyz, find them loaded.
      // ...and let the first Redis connection settle, so the first requests are counted where all the others are.
      await Promise.all([routing.warm(), policy.ready(), responseCache.store.ready()]);
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
      // Passes still running (a purge, a lease renewal) settle before what they use is stopped and closed.
      await running?.stop();
      listener.listenerCheck?.stop();
      circuit.stop();
      await accounting.replayed();
      await accounting.usage.stop();
      await alerts.spendAlerts.stop();
      await accounting.leases.stop();
      await listener.stop();
      await policy.close();
      await mcp.stop();
      await services.tracing?.shutdown();
      await responseCache.store.close();
    },
  };
  return services;
}
