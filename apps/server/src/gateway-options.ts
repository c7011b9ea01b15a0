import type { GatewayOptions } from "@tollgate/gateway/gateway-services";
import { defaultMcpOptions } from "@tollgate/gateway/mcp/mcp-directory";
import { join } from "node:path";
import { addressPolicyFrom, type ServerEnvironment } from "./env";
import { tracingConfigFrom } from "./tracing-config";

function list(value: string): string[] {
  return value.split(",").map((entry) => entry.trim()).filter(Boolean);
}

/** The gateway's options as the environment sets them. */
export function gatewayOptionsFrom(environment: ServerEnvironment): Partial<GatewayOptions> {
  return {
    maxBodyBytes: environment.MAX_BODY_BYTES,
    trustedProxies: list(environment.TRUSTED_PROXIES),
    upstreamTimeoutMs: environment.UPSTREAM_TIMEOUT_MS,
    upstreamMaxBodyBytes: environment.UPSTREAM_MAX_BODY_BYTES,
    upstreamMaxEventBytes: environment.UPSTREAM_MAX_EVENT_BYTES,
    usageFlushIntervalMs: environment.USAGE_FLUSH_INTERVAL_MS,
    usageBufferMax: environment.USAGE_BUFFER_MAX,
    usageWriterThread: environment.USAGE_WRITER_THREAD,
    maxUpstreamAttempts: Math.max(1, environment.UPSTREAM_MAX_ATTEMPTS),
    logRequests: environment.LOG_REQUESTS,
    redisUrl: environment.REDIS_URL,
    redisKeyPrefix: environment.REDIS_KEY_PREFIX,
    metricsToken: environment.METRICS_TOKEN,
    metricsAllowedIps: list(environment.METRICS_ALLOWED_IPS),
    streamIdleTimeoutMs: environment.STREAM_IDLE_TIMEOUT_MS,
    usageSpoolDir: environment.USAGE_SPOOL_DIR ?? join(environment.TOLLGATE_DATA_DIR, "spool"),
    usageSpoolSyncMs: environment.USAGE_SPOOL_SYNC_MS,
    usageWriteStallMs: environment.USAGE_WRITE_STALL_MS,
    cacheMaxAgeMs: environment.CACHE_MAX_AGE_MS,
    listenerCheckIntervalMs: environment.LISTENER_CHECK_INTERVAL_MS,
    bodyReadTimeoutMs: environment.BODY_READ_TIMEOUT_MS,
    upstreamAddressPolicy: addressPolicyFrom(environment),
    outageAllowance: {
      share: environment.OUTAGE_ALLOWANCE_PERCENT / 100,
      capMicroUsd: Math.round(environment.OUTAGE_ALLOWANCE_MAX_USD * 1_000_000),
    },
    invalidKeysPerMinute: environment.INVALID_KEYS_PER_MINUTE,
    mcp: {
      ...defaultMcpOptions,
      stdioEnabled: environment.MCP_STDIO_ENABLED,
      cooldownMs: environment.MCP_COOLDOWN_MS,
      // An MCP server cools down after as many failures within the window as a channel does.
      failureThreshold: Math.max(1, environment.CHANNEL_FAILURE_THRESHOLD),
      failureWindowMs: environment.CHANNEL_FAILURE_WINDOW_MS,
    },
    tracing: tracingConfigFrom(environment),
    responseCache: { maxEntries: environment.RESPONSE_CACHE_MAX_ENTRIES, maxEntryBytes: environment.RESPONSE_CACHE_MAX_ENTRY_BYTES },
    channelHealth: {
      failureThreshold: Math.max(1, environment.CHANNEL_FAILURE_THRESHOLD),
      windowMs: environment.CHANNEL_FAILURE_WINDOW_MS,
      cooldownMs: environment.CHANNEL_COOLDOWN_MS,
      maxCooldownMs: environment.CHANNEL_COOLDOWN_MS * 10,
    },
  };
}
