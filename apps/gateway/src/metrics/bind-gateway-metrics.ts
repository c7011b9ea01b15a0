import type { GatewayMetrics } from "./gateway-metrics";

/** What LoadingCache already counts. */
export interface CacheStatistics {
  hits: number;
  misses: number;
  evictions: number;
}

/** State the gateway keeps anyway, read at scrape time. Every field is optional. */
export interface GatewayMetricSources {
  /** By cache name, e.g. `{ tokens: services.tokens, users: services.users }`. */
  caches?: Record<string, CacheStatistics>;
  usageQueueDepth?: () => number;
  usageDroppedLogs?: () => number;
  /** Request-log rows the database refused, set aside in request_log_dead_letters. */
  usageDeadLetters?: () => number;
  /** The current state of every channel, by its label (name or id). */
  channelStates?: () => Iterable<readonly [channel: string, state: string]>;
  /** Every state a channel can be in: each is reported, 1 for the current one and 0 for the others. */
  channelStateNames?: readonly string[];
}

/** Registers scrape-time sources on the collected metrics; returns a function that removes them. */
export function collectGatewaySources(metrics: GatewayMetrics, sources: GatewayMetricSources): () => void {
  const removers: Array<() => void> = [];
  const { caches, usageQueueDepth, usageDroppedLogs, usageDeadLetters, channelStates } = sources;
  if (caches) {
    removers.push(
      metrics.cacheEvents.onCollect((emit) => {
        for (const [cache, statistics] of Object.entries(caches)) {
          emit({ cache, event: "hit" }, statistics.hits);
          emit({ cache, event: "miss" }, statistics.misses);
          emit({ cache, event: "eviction" }, statistics.evictions);
        }
      }),
    );
  }
  if (usageQueueDepth) removers.push(metrics.usageQueueDepth.onCollect((emit) => emit({}, usageQueueDepth())));
  if (usageDroppedLogs) removers.push(metrics.usageDroppedLogs.onCollect((emit) => emit({}, usageDroppedLogs())));
  if (usageDeadLetters) removers.push(metrics.usageDeadLetters.onCollect((emit) => emit({}, usageDeadLetters())));
  if (channelStates) {
    const names = sources.channelStateNames ?? [];
    removers.push(
      metrics.channelState.onCollect((emit) => {
        for (const [channel, current] of channelStates()) {
          emit({ channel, state: current }, 1);
          for (const state of names) if (state !== current) emit({ channel, state }, 0);
        }
      }),
    );
  }
  return () => {
    for (const remove of removers) remove();
  };
}

/**
 * The routing layer's hooks (`services.metrics` in gateway-services.ts: retry, upstreamError) on top of
 * the Prometheus counters. Children are cached per channel id, so a hook costs one Map lookup.
 */
export function createMetricsHooks(metrics: GatewayMetrics, channelLabel: (channelId: number) => string = String) {
  const retries = new Map<number, { inc(): void }>();
  return {
    retry(channelId: number): void {
      let child = retries.get(channelId);
      if (!child) {
        child = metrics.upstreamRetries.labels(channelLabel(channelId));
        retries.set(channelId, child);
      }
      child.inc();
    },
    upstreamError(channelId: number, status: string): void {
      metrics.upstreamErrors.labels(channelLabel(channelId), status).inc();
    },
  };
}
