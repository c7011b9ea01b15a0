import type { DatabaseHandle } from "@tollgate/db";
import type { QuotaLedger } from "./accounting/quota-ledger";
import type { UsageSink } from "./accounting/usage-writer";
import type { SpendAlerts } from "./alerts/spend-alerts";
import type { CachedTeam, CachedToken, CachedUser } from "./auth/cached-records";
import type { InvalidKeyLimiter } from "./auth/invalid-key-limiter";
import type { LoadingCache } from "./auth/loading-cache";
import type { DatabaseCircuit } from "./database-circuit";
import type { GatewayMetricsHooks, GatewayOptions } from "./gateway-options";
import type { InFlightCalls } from "./in-flight-calls";
import type { ListenerCheck } from "./listener-check";
import type { Logger } from "./logger";
import type { McpServices } from "./mcp/mcp-services";
import type { GatewayMetrics } from "./metrics/gateway-metrics";
import type { IpAllowList } from "./policy/ip-allow-list";
import type { RateLimiter, TokenRateLimiter } from "./policy/rate-limiter-port";
import type { ChannelCatalog, RoutableChannel } from "./routing/channel-catalog";
import type { ChannelHealth } from "./routing/channel-health";
import type { Job } from "./services/jobs";
import type { SettingsCache } from "./settings-cache";
import type { GatewayTracing } from "./tracing/call-trace";
import type { ResponseCache } from "./response-cache/response-cache";

// The options moved to a file of their own; their names stay importable from here.
export { defaultGatewayOptions, type GatewayMetricsHooks, type GatewayOptions } from "./gateway-options";

/**
 * Everything a request handler needs; built once per process (or per test) around one database, by the
 * composition root (apps/server/src/compose-gateway-services.ts) from this app's factories in services/.
 */
export interface GatewayServices {
  database: DatabaseHandle;
  options: GatewayOptions;
  log: Logger;
  tokens: LoadingCache<string, CachedToken>;
  users: LoadingCache<number, CachedUser>;
  teams: LoadingCache<number, CachedTeam>;
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
  /** The MCP gateway's servers, upstream connections and client sessions (/mcp). */
  mcp: McpServices;
  /** OpenTelemetry tracing, chosen once at startup: null when no OTLP endpoint is configured (nothing traced). */
  tracing: GatewayTracing | null;
  /** The exact response cache (opt-in per token or per request): on Redis when REDIS_URL is set, else in process. */
  responseCache: ResponseCache;
  /** Every periodic task of these services (purges, alerts, pruning, lease renewal, listener check). */
  jobs: readonly Job[];
  /** Jobs whose timer is set: all of them between start() and stop(), none before or after. */
  readonly activeJobs: number;
  /** Subscribes to invalidations, starts the write-behind and the jobs. */
  start(): Promise<void>;
  /** Stops every job, writes what is buffered and closes the subscription (not the database). */
  stop(): Promise<void>;
}
