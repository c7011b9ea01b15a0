// Latency of one rate-limit check on Redis (RedisRateLimiter: one EVALSHA) against the in-process limiter
// and a bare PING. Usage: REDIS_URL=redis://127.0.0.1:6379 bun bench/redis-rate-limiter.ts
import { RedisClient } from "bun";
import { SlidingWindowRateLimiter } from "../apps/gateway/src/policy/rate-limiter";
import { RedisRateLimiter } from "../apps/gateway/src/policy/redis-rate-limiter";
import { formatTable } from "./lib/format";
import { percentile } from "./lib/stats";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const count = Number(process.env.BENCH_REDIS_CHECKS ?? 20_000);
const keyPrefix = `tollgate:bench:${process.pid}:`;

/** Runs `total` calls with `concurrency` in flight; returns per-call latencies (µs) and calls per second. */
async function drive(total: number, concurrency: number, call: (index: number) => unknown) {
  const latencies = new Float64Array(total);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        const before = performance.now();
        const result = call(index);
        if (result instanceof Promise) await result;
        latencies[index] = (performance.now() - before) * 1000;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const sorted = latencies.sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), perSecond: total / seconds };
}

const raw = new RedisClient(url);
await raw.send("PING", []);
const limiter = new RedisRateLimiter({ url, keyPrefix, log: (level, message) => console.error(`[${level}] ${message}`) });
for (let attempt = 0; limiter.backend !== "redis"; attempt++) {
  if (attempt > 2000) throw new Error(`Redis at ${url} is not answering`);
  await Bun.sleep(5);
}
const local = new SlidingWindowRateLimiter();
const rows: string[][] = [];
const row = (name: string, result: { p50: number; p99: number; perSecond: number }) =>
  rows.push([name, result.p50.toFixed(1), result.p99.toFixed(1), Math.round(result.perSecond).toLocaleString()]);

// Warm-up: JIT, connection, script cache.
await drive(2000, 16, (index) => limiter.check(index % 100, 1_000_000));
const manyKeys = (index: number) => index % 1000;
row("in-process SlidingWindowRateLimiter, 1 in flight", await drive(count * 10, 1, (index) => local.check(manyKeys(index), 1_000_000)));
row("redis PING, 1 in flight", await drive(count, 1, () => raw.send("PING", [])));
row("RedisRateLimiter.check, 1 in flight", await drive(count, 1, (index) => limiter.check(manyKeys(index), 1_000_000)));
row("RedisRateLimiter.check, 32 in flight", await drive(count * 2, 32, (index) => limiter.check(manyKeys(index), 1_000_000)));
row("RedisRateLimiter.check, 256 in flight", await drive(count * 2, 256, (index) => limiter.check(manyKeys(index), 1_000_000)));
row("RedisRateLimiter.check, 1 hot key, 32 in flight", await drive(count * 2, 32, () => limiter.check(7, 1_000_000_000)));
if (limiter.backend !== "redis") console.log("warning: the limiter fell back to local during the run (a check took over its timeout)");

console.log(`rate-limit check latency against ${url.replace(/\/\/[^@]*@/, "//")} (microseconds)`);
console.log(formatTable(["check", "p50 us", "p99 us", "checks/s"], rows));

limiter.close();
const cleanup = new RedisClient(url);
const keys = (await cleanup.send("KEYS", [`${keyPrefix}*`])) as string[];
for (let index = 0; index < keys.length; index += 500) await cleanup.send("DEL", keys.slice(index, index + 500));
cleanup.close();
raw.close();
