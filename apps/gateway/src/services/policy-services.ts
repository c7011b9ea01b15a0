import { InvalidKeyLimiter } from "../auth/invalid-key-limiter";
import type { GatewayOptions } from "../gateway-options";
import type { Logger } from "../logger";
import { SlidingWindowRateLimiter } from "../policy/rate-limiter";
import type { RateLimiter, TokenRateLimiter } from "../policy/rate-limiter-port";
import { WINDOW_MS } from "../policy/minute-counters";
import { RedisRateLimiter } from "../policy/redis-rate-limiter";
import { SlidingWindowTokenLimiter } from "../policy/token-rate-limiter";
import type { Job } from "./jobs";

/** The rate limits: per process, or shared by every instance through Redis when REDIS_URL is set. */
export interface PolicyServices {
  rateLimiter: RateLimiter;
  /** Tokens per minute per token: checked on admission, fed each finished request's usage. */
  tokenRateLimiter: TokenRateLimiter;
  /** Invalid keys per client address: past the limit, unknown keys are refused without a query. */
  invalidKeys: InvalidKeyLimiter;
  /** Resolves once the first Redis connection settled (at once without Redis). */
  ready(): Promise<unknown>;
  close(): Promise<void>;
  jobs: Job[];
}

export function createPolicyServices(input: {
  log: Logger;
  options: Pick<GatewayOptions, "invalidKeysPerMinute" | "redisUrl" | "redisKeyPrefix">;
}): PolicyServices {
  const { log, options } = input;
  const invalidKeys = new InvalidKeyLimiter({ perMinute: options.invalidKeysPerMinute });
  const localLimiter = new SlidingWindowRateLimiter();
  const localTokenLimiter = new SlidingWindowTokenLimiter();
  const redisLimiter = options.redisUrl ? new RedisRateLimiter({ url: options.redisUrl, log, keyPrefix: options.redisKeyPrefix }) : null;
  return {
    rateLimiter: redisLimiter ?? localLimiter,
    tokenRateLimiter: redisLimiter?.tokens ?? localTokenLimiter,
    invalidKeys,
    ready: async () => redisLimiter?.ready(),
    close: async () => redisLimiter?.close(),
    jobs: [
      {
        name: "rate-limit-prune",
        // Once a minute: counters of windows that have passed are dropped (the local ones, and Redis's fallback).
        intervalMs: WINDOW_MS,
        run() {
          localLimiter.prune();
          localTokenLimiter.prune();
          invalidKeys.prune();
          redisLimiter?.prune();
        },
      },
    ],
  };
}
