import { RedisClient } from "bun";
import { LRUCache } from "lru-cache";
import type { Logger } from "../logger";

/**
 * Where cached answers live: a string per key, each with its own time to live. Every failure is a miss
 * (a cache is never the reason a call fails).
 */
export interface ResponseCacheStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Resolves once the store can answer (the first Redis connection settled, connected or not). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The in-process store (no REDIS_URL): bounded in entries and in bytes, least recently used first out. */
export function localResponseCacheStore(options: { maxEntries: number; maxEntryBytes: number }): ResponseCacheStore {
  const entries = new LRUCache<string, string>({
    max: Math.max(1, options.maxEntries),
    // Bounded in size too: at most maxEntries of the largest entry, and never more than 256 MiB.
    maxSize: Math.min(256 * 1024 * 1024, Math.max(1, options.maxEntries) * Math.max(1024, options.maxEntryBytes)),
    sizeCalculation: (value) => Math.max(1, value.length),
    ttlAutopurge: false,
  });
  return {
    get: async (key) => entries.get(key) ?? null,
    async set(key, value, ttlSeconds) {
      entries.set(key, value, { ttl: ttlSeconds * 1000 });
    },
    ready: async () => {},
    async close() {
      entries.clear();
    },
  };
}

/**
 * The Redis store (REDIS_URL): shared by every instance, entries expire by SETEX. Commands fail fast while
 * disconnected (no offline queue): a call never waits on the cache for long, it misses.
 */
export function redisResponseCacheStore(options: { url: string; keyPrefix: string; log: Logger }): ResponseCacheStore {
  const client = new RedisClient(options.url, { enableOfflineQueue: false, connectionTimeout: 1000 });
  let warned = false;
  const failed = (error: unknown) => {
    if (!warned) options.log("warn", "response cache unavailable on Redis; calls miss until it answers", { error: String(error) });
    warned = true;
    return null;
  };
  return {
    async get(key) {
      try {
        const value = await client.get(options.keyPrefix + key);
        warned = false;
        return value;
      } catch (error) {
        return failed(error);
      }
    },
    async set(key, value, ttlSeconds) {
      try {
        await client.setex(options.keyPrefix + key, ttlSeconds, value);
      } catch (error) {
        failed(error);
      }
    },
    async ready() {
      // Without an offline queue, commands sent before the first connection fail: connect at startup.
      await client.connect().catch(failed);
    },
    async close() {
      client.close();
    },
  };
}
