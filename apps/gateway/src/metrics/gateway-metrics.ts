import { EXPOSITION_CONTENT_TYPE } from "./exposition-format";
import { MetricsRegistry } from "./registry";

/** Seconds; from a cached embedding (a few ms) to a long non-streamed completion (minutes). */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Seconds from the request to the first streamed byte. */
export const TIME_TO_FIRST_TOKEN_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];

/**
 * The gateway's Prometheus metrics. Per-request handles are plain object fields updated in place
 * (`metrics.requests.labels(endpoint, model, channel, status).inc()`); the rest are read at scrape time
 * from sources registered with `onCollect`, so they cost nothing per request.
 *
 * Label values should come from the gateway's own names (endpoints, catalog models, channel names), not
 * from unchecked request input: each family keeps at most 10,000 series and folds the rest into one
 * labelled "_overflow".
 */
export function createGatewayMetrics(options: { processMetrics?: boolean } = {}) {
  const registry = new MetricsRegistry();
  const metrics = {
    registry,
    contentType: EXPOSITION_CONTENT_TYPE,
    requests: registry.counter({
      name: "tollgate_requests_total",
      help: "Calls answered on /v1, by endpoint, requested model, channel that served it (empty if none) and HTTP status.",
      labelNames: ["endpoint", "model", "channel", "status"],
    }),
    requestDuration: registry.histogram({
      name: "tollgate_request_duration_seconds",
      help: "Time from a call's arrival to the end of its answer (the last streamed byte for streams).",
      labelNames: ["endpoint", "model"],
      buckets: REQUEST_DURATION_BUCKETS,
    }),
    timeToFirstToken: registry.histogram({
      name: "tollgate_time_to_first_token_seconds",
      help: "Time from a streamed call's arrival to its first byte relayed to the client.",
      labelNames: ["model"],
      buckets: TIME_TO_FIRST_TOKEN_BUCKETS,
    }),
    tokens: registry.counter({
      name: "tollgate_tokens_total",
      help: "Tokens accounted, by model and kind (prompt, completion, cached, cache_write, cache_write_1h: the cache kinds are parts of prompt).",
      labelNames: ["model", "kind"],
    }),
    cost: registry.counter({
      name: "tollgate_cost_microusd_total",
      help: "Cost charged to tokens, in micro-USD (1 USD = 1,000,000).",
      labelNames: ["model"],
    }),
    upstreamErrors: registry.counter({
      name: "tollgate_upstream_errors_total",
      help: "Failed upstream attempts, by channel and status (the HTTP status, or 'timeout'/'unreachable').",
      labelNames: ["channel", "status"],
    }),
    upstreamRetries: registry.counter({
      name: "tollgate_upstream_retries_total",
      help: "Attempts moved on to another channel after this channel failed.",
      labelNames: ["channel"],
    }),
    rateLimitRefusals: registry.counter({
      name: "tollgate_rate_limit_refusals_total",
      help: "Calls refused with 429 rate_limit_exceeded, by the limit that refused them (requests or tokens per minute).",
      labelNames: ["limit"],
    }),
    cacheEvents: registry.collected({
      name: "tollgate_cache_events_total",
      help: "In-memory cache events (hit, miss, eviction) by cache, read at scrape time.",
      type: "counter",
      labelNames: ["cache", "event"],
    }),
    usageQueueDepth: registry.collected({
      name: "tollgate_usage_queue_depth",
      help: "Request-log rows waiting to be written behind.",
      type: "gauge",
      labelNames: [],
    }),
    usageDroppedLogs: registry.collected({
      name: "tollgate_usage_dropped_logs_total",
      help: "Request-log rows dropped because the buffer was full while the database was unreachable.",
      type: "counter",
      labelNames: [],
    }),
    usageDeadLetters: registry.collected({
      name: "tollgate_usage_dead_letters_total",
      help: "Request-log rows the database refused, set aside in request_log_dead_letters (their spend was applied).",
      type: "counter",
      labelNames: [],
    }),
    channelState: registry.collected({
      name: "tollgate_channel_state",
      help: "1 for each channel's current state (e.g. enabled, cooling_down, disabled), 0 for the others.",
      type: "gauge",
      labelNames: ["channel", "state"],
    }),
    /** Prometheus text exposition of everything, for GET /metrics. */
    render: () => registry.render(),
  };
  if (options.processMetrics !== false) registerProcessMetrics(registry);
  return metrics;
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

const startTimeSeconds = Math.floor(Date.now() / 1000 - process.uptime());

/** The standard process_* series, read at scrape time. */
function registerProcessMetrics(registry: MetricsRegistry): void {
  registry
    .collected({ name: "process_cpu_seconds_total", help: "User and system CPU time spent, in seconds.", type: "counter", labelNames: [] })
    .onCollect((emit) => {
      const usage = process.cpuUsage();
      emit({}, (usage.user + usage.system) / 1e6);
    });
  registry
    .collected({ name: "process_resident_memory_bytes", help: "Resident memory size in bytes.", type: "gauge", labelNames: [] })
    .onCollect((emit) => emit({}, process.memoryUsage.rss()));
  registry
    .collected({ name: "process_start_time_seconds", help: "Start time of the process since the Unix epoch, in seconds.", type: "gauge", labelNames: [] })
    .onCollect((emit) => emit({}, startTimeSeconds));
}
