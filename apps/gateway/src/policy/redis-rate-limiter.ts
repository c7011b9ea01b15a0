import { RedisClient } from "bun";
import type { LogLevel } from "../logger";
import { type RateLimitKey, WINDOW_MS } from "./minute-counters";
import { type RateLimitDecision, SlidingWindowRateLimiter } from "./rate-limiter";
import type { RateLimiter, TokenRateLimiter } from "./rate-limiter-port";
import { decideTokens, SlidingWindowTokenLimiter } from "./token-rate-limiter";

/**
 * The sliding-window counter of SlidingWindowRateLimiter, done atomically on Redis. The arithmetic is
 * written in the same order as the local limiter's, so both give the same decision to the bit for the
 * same counts (Lua numbers are doubles, like JavaScript's).
 * KEYS[1]: this minute's counter, KEYS[2]: the previous minute's, KEYS[3] and KEYS[4]: the time (epoch ms)
 * of the last request each of them counted. A count without its time (written by an older version) is
 * taken to be as late as it could be. ARGV: limit, now (ms), window (ms).
 * Returns {allowed (1/0), remaining, retryAfterMs, resetMs}.
 */
export const SLIDING_WINDOW_SCRIPT = `
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local elapsed = now % window
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local storedPrevious = tonumber(redis.call('GET', KEYS[2]) or '0')
local currentLast = tonumber(redis.call('GET', KEYS[3]) or ARGV[2])
local previousLast = tonumber(redis.call('GET', KEYS[4]) or tostring(now - elapsed - 1))
if storedPrevious == 0 then previousLast = 0 end
local previous = storedPrevious
if now - previousLast >= window then previous = 0 end
local previousWeight = (window - elapsed) / window
local used = previous * previousWeight + current
local reset = window - elapsed
if storedPrevious > 0 then reset = reset + window end
if used + 1 > limit then
  local retry
  if current + 1 > limit then
    local needed = 0
    if current > 0 then needed = (1 - (limit - 1) / current) * window end
    retry = math.ceil((window - elapsed) + math.max(0, needed))
    if current > 0 then retry = math.max(1, math.min(retry, currentLast + window - now)) end
  else
    local weightNeeded = 1
    if previous > 0 then weightNeeded = (limit - 1 - current) / previous end
    retry = math.max(1, math.min(math.ceil((1 - weightNeeded) * window - elapsed), previousLast + window - now))
  end
  return {0, 0, retry, reset}
end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], window * 2 + 1000) end
redis.call('SET', KEYS[3], ARGV[2], 'PX', window * 2 + 1000)
return {1, math.max(0, math.floor(limit - used - 1)), 0, reset}
`;

/**
 * Adds a finished request's tokens to this minute's tokens-per-minute counter, with the counter's expiry
 * set in the same step (a key never outlives its window), and keeps the time of the minute's last
 * consumption (the latest any instance reported).
 * KEYS[1]: this minute's token counter, KEYS[2]: its last consumption (epoch ms). ARGV: tokens, expiry (ms), now (ms).
 */
export const CONSUME_TOKENS_SCRIPT = `
local tokens = tonumber(ARGV[1])
if redis.call('INCRBY', KEYS[1], tokens) == tokens then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if last < tonumber(ARGV[3]) then redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2]) end
return 1
`;

const KEY_EXPIRY_MS = WINDOW_MS * 2 + 1000;

interface Script {
  text: string;
  /** SHA1 once SCRIPT LOAD answered; EVALSHA is tried first, EVAL when Redis has forgotten it. */
  sha: string | null;
}

export interface RedisRateLimiterOptions {
  /** redis://[user:password@]host:port[/db] (rediss:// for TLS). */
  url: string;
  log: (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;
  /** Longest wait for one Redis answer before the request is decided locally. Default 50 ms. */
  timeoutMs?: number;
  /** How often a background probe tries Redis again while it is unavailable. Default 1000 ms. */
  probeIntervalMs?: number;
  /**
   * Default "tollgate:rl:"; keys are `${prefix}{key}:${windowStart}` for requests and
   * `${prefix}{key}:t:${windowStart}` for tokens, the key a token's id or `u{userId}` for a user's tokens
   * together, with the time of each minute's last request in `${prefix}{key}:l:${windowStart}` and last
   * consumption in `...:tl:${windowStart}` (the braces are a cluster hash tag).
   */
  keyPrefix?: string;
}

class RedisTimeoutError extends Error {}

/**
 * Requests per minute per token, shared by every gateway instance through Redis: one EVALSHA per check,
 * bounded by a short timeout. When Redis is unreachable, errors or is slow, the check is answered at once
 * by a per-process SlidingWindowRateLimiter (logged once per outage), and a background probe switches
 * back when Redis answers again; requests never wait for it.
 *
 * Every request Redis allows is also counted locally, so that on a failover each instance starts from its
 * own share of the recent traffic instead of a fresh allowance. Windows come from this process's clock
 * (instances are assumed NTP-synced; a skew of s ms shifts the window edge by s ms).
 *
 * `tokens` is the tokens-per-minute limiter on the same connection, with the same fallback: a check is
 * one MGET of the two minutes' counters, decided by decideTokens like the in-process limiter; a consume
 * is one script (INCRBY + PEXPIRE) sent without waiting, and always counted locally as well.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly client: RedisClient;
  private readonly local = new SlidingWindowRateLimiter();
  private readonly localTokens = new SlidingWindowTokenLimiter();
  private readonly windowScript: Script = { text: SLIDING_WINDOW_SCRIPT, sha: null };
  private readonly consumeScript: Script = { text: CONSUME_TOKENS_SCRIPT, sha: null };
  private readonly log: RedisRateLimiterOptions["log"];
  private readonly timeoutMs: number;
  private readonly probeIntervalMs: number;
  private readonly keyPrefix: string;
  private available = false;
  /** True once Redis has been reported unavailable, until it answers again: one log line per outage. */
  private outageLogged = false;
  private probeTimer: ReturnType<typeof setTimeout> | null = null;
  private probing = false;
  private closed = false;
  private readonly firstProbe: Promise<void>;

  constructor(options: RedisRateLimiterOptions) {
    this.log = options.log;
    this.timeoutMs = options.timeoutMs ?? 50;
    this.probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.keyPrefix = options.keyPrefix ?? "tollgate:rl:";
    // Reconnection is ours (the probe): Bun's own would queue commands while disconnected, and a queued
    // INCR would count a request long after it was decided.
    this.client = new RedisClient(options.url, {
      autoReconnect: false,
      enableOfflineQueue: false,
      connectionTimeout: Math.max(250, this.timeoutMs * 10),
    });
    this.client.onclose = (error) => this.markUnavailable(error);
    this.firstProbe = this.probe().catch(() => {});
  }

  /** Forgets the fallback counters of past windows (run every minute by the gateway's jobs). */
  prune(): void {
    this.local.prune();
    this.localTokens.prune();
  }

  /** Resolves once the first connection attempt has ended (connected or fallen back to local counting). */
  ready(): Promise<void> {
    return this.firstProbe;
  }

  /** "redis" while checks go to Redis, "local" while they are answered by this process alone. */
  get backend(): "redis" | "local" {
    return this.available ? "redis" : "local";
  }

  check(key: RateLimitKey, limit: number, now = Date.now()): RateLimitDecision | Promise<RateLimitDecision> {
    if (!this.available) return this.local.check(key, limit, now);
    return this.checkOnRedis(key, limit, now);
  }

  /** Tokens per minute per token, shared like the requests per minute (see the class comment). */
  readonly tokens = {
    check: (key: RateLimitKey, limit: number, now = Date.now()): RateLimitDecision | Promise<RateLimitDecision> => {
      if (!this.available) return this.localTokens.check(key, limit, now);
      return this.checkTokensOnRedis(key, limit, now);
    },
    consume: (key: RateLimitKey, tokens: number, now = Date.now()): void => {
      if (!(tokens > 0)) return;
      this.localTokens.consume(key, tokens, now);
      if (!this.available) return;
      const windowStart = now - (now % WINDOW_MS);
      const args = [this.tokensKey(key, windowStart), this.lastKey(key, "tl", windowStart), String(Math.ceil(tokens)), String(KEY_EXPIRY_MS), String(now)];
      this.withTimeout(this.evaluate(this.consumeScript, "2", args)).catch((error) => this.markUnavailable(error));
    },
  } satisfies TokenRateLimiter;

  /** Stops the probe and closes the connection; checks after this are local. */
  close(): void {
    this.closed = true;
    this.available = false;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.client.onclose = null;
    this.client.close();
  }

  private async checkOnRedis(key: RateLimitKey, limit: number, now: number): Promise<RateLimitDecision> {
    const windowStart = now - (now % WINDOW_MS);
    const currentKey = `${this.keyPrefix}{${key}}:${windowStart}`;
    const previousKey = `${this.keyPrefix}{${key}}:${windowStart - WINDOW_MS}`;
    const lastKeys = [this.lastKey(key, "l", windowStart), this.lastKey(key, "l", windowStart - WINDOW_MS)];
    const args = [currentKey, previousKey, ...lastKeys, String(limit), String(now), String(WINDOW_MS)];
    let reply: [number, number, number, number];
    try {
      reply = await this.withTimeout(this.evaluate<[number, number, number, number]>(this.windowScript, "4", args));
    } catch (error) {
      this.markUnavailable(error);
      return this.local.check(key, limit, now);
    }
    const allowed = reply[0] === 1;
    if (allowed) this.local.check(key, limit, now);
    return { allowed, limit, remaining: reply[1], retryAfterMs: reply[2], resetMs: reply[3] };
  }

  private tokensKey(key: RateLimitKey, windowStart: number): string {
    return `${this.keyPrefix}{${key}}:t:${windowStart}`;
  }

  /** The time of a minute's last request ("l") or last consumption ("tl"), beside its counter. */
  private lastKey(key: RateLimitKey, kind: "l" | "tl", windowStart: number): string {
    return `${this.keyPrefix}{${key}}:${kind}:${windowStart}`;
  }

  private async checkTokensOnRedis(key: RateLimitKey, limit: number, now: number): Promise<RateLimitDecision> {
    const windowStart = now - (now % WINDOW_MS);
    const previousStart = windowStart - WINDOW_MS;
    const keys = [this.tokensKey(key, windowStart), this.tokensKey(key, previousStart), this.lastKey(key, "tl", windowStart), this.lastKey(key, "tl", previousStart)];
    let counts: [string | null, string | null, string | null, string | null];
    try {
      counts = await this.withTimeout(this.client.send("MGET", keys));
    } catch (error) {
      this.markUnavailable(error);
      return this.localTokens.check(key, limit, now);
    }
    // A count without its time (written by an older version) is taken to be as late as it could be.
    const lastAt = counts[2] === null ? now : Number(counts[2]);
    const previousLastAt = counts[3] === null ? windowStart - 1 : Number(counts[3]);
    return decideTokens(limit, Number(counts[0] ?? 0), Number(counts[1] ?? 0), now, lastAt, previousLastAt);
  }

  /** keyCount and args (keys first, then arguments) as EVALSHA takes them. */
  private async evaluate<T>(script: Script, keyCount: "1" | "2" | "4", args: string[]): Promise<T> {
    if (script.sha !== null) {
      try {
        return await this.client.send("EVALSHA", [script.sha, keyCount, ...args]);
      } catch (error) {
        // A restarted or flushed Redis has forgotten the script: run it by its text (which caches it again).
        if (!String((error as Error).message).startsWith("NOSCRIPT")) throw error;
      }
    }
    return await this.client.send("EVAL", [script.text, keyCount, ...args]);
  }

  private withTimeout<T>(promise: Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        // The late answer (or error) is dropped, not left unhandled.
        promise.catch(() => {});
        reject(new RedisTimeoutError(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      promise.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  private markUnavailable(error: unknown): void {
    if (this.closed) return;
    const wasAvailable = this.available;
    this.available = false;
    if (wasAvailable || !this.outageLogged) this.reportOutage(error);
    this.scheduleProbe();
  }

  private reportOutage(error: unknown): void {
    if (this.outageLogged) return;
    this.outageLogged = true;
    this.log("warn", "redis unavailable: rate limits are counted per process until it answers again", {
      error: error instanceof Error ? error.message : String(error),
    });
  }

  private scheduleProbe(): void {
    if (this.closed || this.probing || this.probeTimer !== null) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      void this.probe();
    }, this.probeIntervalMs);
    this.probeTimer.unref?.();
  }

  /** Connects if needed and (re)loads the script; on success checks go to Redis again. */
  private async probe(): Promise<void> {
    if (this.closed || this.probing) return;
    this.probing = true;
    try {
      if (!this.client.connected) await this.withTimeout(this.client.connect(), Math.max(250, this.timeoutMs * 10));
      for (const script of [this.windowScript, this.consumeScript]) {
        script.sha = await this.withTimeout(this.client.send("SCRIPT", ["LOAD", script.text]), 1000);
      }
      if (this.closed) return;
      this.available = true;
      if (this.outageLogged) this.log("info", "redis answers again: rate limits are shared again");
      this.outageLogged = false;
      this.probing = false;
    } catch (error) {
      this.probing = false;
      this.markUnavailable(error);
    }
  }
}
