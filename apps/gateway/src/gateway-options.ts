import { defaultMcpOptions, type McpOptions } from "./mcp/mcp-directory";
import { DEFAULT_UPSTREAM_ADDRESS_POLICY, type UpstreamAddressPolicy } from "@tollgate/shared";
import { DEFAULT_UPSTREAM_MAX_BODY_BYTES, DEFAULT_UPSTREAM_MAX_EVENT_BYTES } from "@tollgate/upstream";
import { defaultOutageAllowance, type OutageAllowanceOptions } from "./accounting/outage-allowance";
import { defaultLeaseOptions, type LeaseOptions } from "./accounting/quota-leases";
import { defaultSpendAlertOptions, type SpendAlertOptions } from "./alerts/spend-alerts";
import { defaultChannelHealthOptions, type ChannelHealthOptions } from "./routing/channel-health";
import type { TracingConfig } from "./tracing/call-trace";

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
  /** The MCP gateway: stdio servers allowed (MCP_STDIO_ENABLED), cool-down, timeouts, sessions. */
  mcp: McpOptions;
  /** OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_* variables); null: no tracing at all. */
  tracing: TracingConfig | null;
  /**
   * The exact response cache's in-process store (without REDIS_URL): its most entries, and the largest
   * answer kept on either store (RESPONSE_CACHE_MAX_ENTRIES, RESPONSE_CACHE_MAX_ENTRY_BYTES).
   */
  responseCache: { maxEntries: number; maxEntryBytes: number };
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
  mcp: defaultMcpOptions,
  tracing: null,
  responseCache: { maxEntries: 10_000, maxEntryBytes: 1024 * 1024 },
};
