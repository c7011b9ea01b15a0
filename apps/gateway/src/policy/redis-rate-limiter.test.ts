import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import type { LogLevel } from "../logger";
import { SlidingWindowRateLimiter } from "./rate-limiter";
import { RedisRateLimiter } from "./redis-rate-limiter";
import { SlidingWindowTokenLimiter } from "./token-rate-limiter";

interface LogLine {
  level: LogLevel;
  message: string;
}

interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

/** A throw-away redis-server of our own, so that a test can stop and restart it. */
async function startRedis(port = freePort()): Promise<RedisServer> {
  const child = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdout: "ignore", stderr: "inherit" },
  );
  const url = `redis://127.0.0.1:${port}`;
  await until(async () => {
    const probe = new RedisClient(url, { autoReconnect: false, connectionTimeout: 200 });
    try {
      return (await probe.send("PING", [])) === "PONG";
    } catch {
      return false;
    } finally {
      probe.close();
    }
  }, `redis-server on port ${port}`);
  return {
    port,
    url,
    async stop() {
      child.kill("SIGKILL");
      await child.exited;
    },
  };
}

function startOfMinute(time: number): number {
  return time - (time % 60_000);
}

let redis: RedisServer;
const limiters: RedisRateLimiter[] = [];

function limiter(url: string, logs: LogLine[] = [], options: { probeIntervalMs?: number } = {}) {
  const created = new RedisRateLimiter({
    url,
    log: (level, message) => logs.push({ level, message }),
    probeIntervalMs: options.probeIntervalMs,
  });
  limiters.push(created);
  return created;
}

/** Two limiters on the shared Redis, as two gateway instances would be, once both are connected. */
async function twoInstancesOnRedis(): Promise<[RedisRateLimiter, RedisRateLimiter]> {
  const first = limiter(redis.url);
  const second = limiter(redis.url);
  await until(() => first.backend === "redis" && second.backend === "redis", "both limiters on redis");
  return [first, second];
}

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  for (const created of limiters) created.close();
  await redis?.stop();
});

describe("redis rate limiter", () => {
  test("two instances share one limit", async () => {
    const [first, second] = await twoInstancesOnRedis();
    const now = Date.now();
    const decisions = [];
    for (let index = 0; index < 6; index++) {
      decisions.push(await (index % 2 === 0 ? first : second).check(101, 5, now + index));
    }
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions.slice(0, 5).map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(decisions[5]!.retryAfterMs).toBeGreaterThan(0);
    // Another token has its own window.
    expect((await second.check(102, 5, now)).allowed).toBe(true);
  });

  test("a user's key shares one limit across instances, apart from the token with the same digits", async () => {
    const [first, second] = await twoInstancesOnRedis();
    const now = Date.now();
    expect((await first.check("u103", 2, now)).allowed).toBe(true);
    expect((await second.check("u103", 2, now + 1)).allowed).toBe(true);
    expect((await first.check("u103", 2, now + 2)).allowed).toBe(false);
    expect((await second.check(103, 2, now + 2)).allowed).toBe(true);
    first.tokens.consume("u104", 40, now);
    await until(async () => !(await second.tokens.check("u104", 40, now + 3)).allowed, "the user's tokens on redis");
    expect((await second.tokens.check(104, 40, now + 3)).allowed).toBe(true);
  });

  test("gives the same decisions as the in-process limiter as the window slides and decays", async () => {
    const shared = limiter(redis.url);
    await until(() => shared.backend === "redis", "limiter on redis");
    const local = new SlidingWindowRateLimiter();
    const start = startOfMinute(Date.now());
    // Bursts late in one minute, then probes through the next two as the previous minute's weight decays.
    const times = [
      ...Array.from({ length: 12 }, (_, index) => start + 50_000 + index * 700),
      start + 60_001,
      start + 60_500,
      start + 66_000,
      start + 75_000,
      start + 75_001,
      start + 90_000,
      start + 90_000,
      start + 105_000,
      ...Array.from({ length: 8 }, (_, index) => start + 110_000 + index),
      start + 125_000,
      start + 179_999,
      start + 240_000,
    ];
    for (const time of times) {
      const fromRedis = await shared.check(201, 10, time);
      expect(fromRedis).toEqual(local.check(201, 10, time));
    }
    // A refused request told to come back after retryAfterMs passes then, on both.
    const refused = await shared.check(202, 1, start + 5_000);
    const again = await shared.check(202, 1, start + 5_000 + 1);
    expect(again.allowed).toBe(false);
    expect(refused.allowed).toBe(true);
    const retryAt = start + 5_001 + again.retryAfterMs;
    expect((await shared.check(202, 1, retryAt)).allowed).toBe(true);
  });

  test("a 3-per-minute key refused 7 s into a minute is told 55 s (not 73), and early bursts decide as in process", async () => {
    const shared = limiter(redis.url);
    await until(() => shared.backend === "redis", "limiter on redis");
    const start = startOfMinute(Date.now()) + 60_000;
    for (const offset of [0, 1000, 2000]) expect((await shared.check(301, 3, start + offset)).allowed).toBe(true);
    const refused = await shared.check(301, 3, start + 7000);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 55_000 });
    expect((await shared.check(301, 3, start + 61_999)).allowed).toBe(false);
    expect((await shared.check(301, 3, start + 62_000)).allowed).toBe(true);

    // Bursts early in a minute, refusals told when to come back, and retries then: the same as in process.
    const local = new SlidingWindowRateLimiter();
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let run = 0; run < 20; run++) {
      const key = 400 + run;
      const limit = 1 + Math.floor(random() * 6);
      let time = start + Math.floor(random() * 60_000);
      for (let index = 0; index < 20; index++) {
        time += Math.floor(random() * (random() < 0.5 ? 500 : 20_000));
        const fromRedis = await shared.check(key, limit, time);
        expect(fromRedis).toEqual(local.check(key, limit, time));
        if (fromRedis.allowed) continue;
        expect(fromRedis.retryAfterMs).toBeLessThanOrEqual(60_000);
        time += fromRedis.retryAfterMs;
        const retried = await shared.check(key, limit, time);
        expect(retried).toEqual(local.check(key, limit, time));
        expect(retried.allowed).toBe(true);
      }
    }
  });

  test("falls back to per-process limits while redis is down, logs once, and returns when it is back", async () => {
    const own = await startRedis();
    const logs: LogLine[] = [];
    const limits = limiter(own.url, logs, { probeIntervalMs: 20 });
    await until(() => limits.backend === "redis", "limiter on redis");
    const now = Date.now();
    expect((await limits.check(301, 3, now)).allowed).toBe(true);
    expect((await limits.check(301, 3, now)).allowed).toBe(true);

    await own.stop();
    // Whether or not the connection loss was noticed yet, a check answers without throwing.
    const duringOutage = [];
    for (let index = 0; index < 5; index++) duringOutage.push(await limits.check(301, 3, now));
    expect(limits.backend).toBe("local");
    // This process had counted its two requests: one more passes, then the limit holds locally.
    expect(duringOutage.map((decision) => decision.allowed)).toEqual([true, false, false, false, false]);
    // Checks while down are answered synchronously, without waiting for Redis.
    expect(limits.check(302, 3, now)).not.toBeInstanceOf(Promise);
    expect(logs.filter((line) => line.level === "warn")).toHaveLength(1);

    const restarted = await startRedis(own.port);
    try {
      await until(() => limits.backend === "redis", "limiter back on redis");
      expect(logs.filter((line) => line.level === "warn")).toHaveLength(1);
      expect(logs.at(-1)?.level).toBe("info");
      // The restarted Redis is empty, so the token's count there starts again, and the check lands there.
      const later = Date.now();
      expect((await limits.check(303, 3, later)).allowed).toBe(true);
      const inspector = new RedisClient(restarted.url);
      try {
        const key = `tollgate:rl:{303}:${startOfMinute(later)}`;
        expect(await inspector.get(key)).toBe("1");
        expect(await inspector.pttl(key)).toBeGreaterThan(60_000);
      } finally {
        inspector.close();
      }
    } finally {
      await restarted.stop();
    }
  });

  test("a redis that does not answer in time is bypassed for the request", async () => {
    // A server that accepts connections and never replies: every command times out.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const logs: LogLine[] = [];
      const limits = new RedisRateLimiter({ url: `redis://127.0.0.1:${silent.port}`, log: (level, message) => logs.push({ level, message }), timeoutMs: 30 });
      limiters.push(limits);
      await until(() => logs.length > 0, "the outage to be logged");
      const decision = limits.check(401, 2);
      expect(decision).not.toBeInstanceOf(Promise);
      expect((decision as Awaited<typeof decision>).allowed).toBe(true);
      expect(logs).toHaveLength(1);
    } finally {
      silent.stop(true);
    }
  });
});

describe("redis tokens-per-minute limiter", () => {
  test("two instances share one token budget, on keys of their own", async () => {
    const [first, second] = await twoInstancesOnRedis();
    const now = Date.now();
    expect(await first.tokens.check(501, 1000, now)).toMatchObject({ allowed: true, remaining: 1000 });
    first.tokens.consume(501, 600, now);
    // The consume is not awaited by anyone: the other instance sees it once Redis has applied it.
    await until(async () => (await second.tokens.check(501, 1000, now)).remaining === 400, "the first consume on redis");
    second.tokens.consume(501, 400, now);
    const refused = await second.tokens.check(501, 1000, now);
    expect(refused).toMatchObject({ allowed: false, limit: 1000, remaining: 0 });
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(await first.tokens.check(501, 1000, now)).toEqual(refused);
    // Another token has its own budget, and the requests-per-minute counter of the same token is apart.
    expect((await first.tokens.check(502, 1000, now)).allowed).toBe(true);
    expect((await first.check(501, 1, now)).allowed).toBe(true);
    const inspector = new RedisClient(redis.url);
    try {
      const key = `tollgate:rl:{501}:t:${startOfMinute(now)}`;
      expect(await inspector.get(key)).toBe("1000");
      expect(await inspector.pttl(key)).toBeGreaterThan(60_000);
      expect(await inspector.get(`tollgate:rl:{501}:${startOfMinute(now)}`)).toBe("1");
    } finally {
      inspector.close();
    }
  });

  test("gives the same decisions as the in-process limiter as the window slides and decays", async () => {
    const shared = limiter(redis.url);
    await until(() => shared.backend === "redis", "limiter on redis");
    const local = new SlidingWindowTokenLimiter();
    const start = startOfMinute(Date.now());
    const steps: Array<[offset: number, consumed: number]> = [
      [50_000, 400],
      [55_000, 350],
      [59_999, 300],
      [60_001, 0],
      [66_000, 120],
      [75_000, 0],
      [90_000, 500],
      [105_000, 0],
      [125_000, 0],
      [179_999, 0],
      [240_000, 0],
    ];
    for (const [offset, consumed] of steps) {
      const time = start + offset;
      // Consumes and checks of one instance go down one connection in order, so no wait is needed.
      expect(await shared.tokens.check(601, 1000, time)).toEqual(local.check(601, 1000, time));
      shared.tokens.consume(601, consumed, time);
      local.consume(601, consumed, time);
      expect(await shared.tokens.check(601, 1000, time)).toEqual(local.check(601, 1000, time));
    }
  });

  test("a key that spent its minute early is told at most 60 s, and bursts decide as in process", async () => {
    const shared = limiter(redis.url);
    await until(() => shared.backend === "redis", "limiter on redis");
    const start = startOfMinute(Date.now()) + 60_000;
    shared.tokens.consume(701, 3000, start + 1000);
    const refused = await shared.tokens.check(701, 1000, start + 5000);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 56_000 });
    expect((await shared.tokens.check(701, 1000, start + 60_999)).allowed).toBe(false);
    expect((await shared.tokens.check(701, 1000, start + 61_000)).allowed).toBe(true);

    const local = new SlidingWindowTokenLimiter();
    let seed = 5;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let run = 0; run < 20; run++) {
      const key = 800 + run;
      const limit = 100 + Math.floor(random() * 2000);
      let time = start + Math.floor(random() * 60_000);
      for (let index = 0; index < 15; index++) {
        time += Math.floor(random() * (random() < 0.5 ? 500 : 20_000));
        const fromRedis = await shared.tokens.check(key, limit, time);
        expect(fromRedis).toEqual(local.check(key, limit, time));
        if (fromRedis.allowed) {
          const tokens = Math.floor(random() * limit * 1.5);
          shared.tokens.consume(key, tokens, time);
          local.consume(key, tokens, time);
          continue;
        }
        expect(fromRedis.retryAfterMs).toBeLessThanOrEqual(60_000);
        time += fromRedis.retryAfterMs;
        expect(await shared.tokens.check(key, limit, time)).toMatchObject({ allowed: true });
        expect(local.check(key, limit, time).allowed).toBe(true);
      }
    }
  });

  test("falls back to this process's counts while redis is down, and counts on redis again when it is back", async () => {
    const own = await startRedis();
    const logs: LogLine[] = [];
    const limits = limiter(own.url, logs, { probeIntervalMs: 20 });
    await until(() => limits.backend === "redis", "limiter on redis");
    const now = Date.now();
    limits.tokens.consume(701, 300, now);
    await until(async () => (await limits.tokens.check(701, 500, now)).remaining === 200, "the consume on redis");

    await own.stop();
    // Whether or not the loss was noticed yet, consume neither throws nor waits, and a check answers.
    expect(limits.tokens.consume(701, 0, now)).toBeUndefined();
    const firstDuringOutage = await limits.tokens.check(701, 500, now);
    expect(limits.backend).toBe("local");
    // The 300 tokens counted while on redis were counted here too: failover starts from this share.
    expect(firstDuringOutage).toMatchObject({ allowed: true, remaining: 200 });
    limits.tokens.consume(701, 250, now);
    const refused = limits.tokens.check(701, 500, now);
    expect(refused).not.toBeInstanceOf(Promise);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(logs.filter((line) => line.level === "warn")).toHaveLength(1);

    const restarted = await startRedis(own.port);
    try {
      await until(() => limits.backend === "redis", "limiter back on redis");
      expect(logs.filter((line) => line.level === "warn")).toHaveLength(1);
      const later = Date.now();
      limits.tokens.consume(702, 42, later);
      const inspector = new RedisClient(restarted.url);
      try {
        const key = `tollgate:rl:{702}:t:${startOfMinute(later)}`;
        await until(async () => (await inspector.get(key)) === "42", "the consume to land on the restarted redis");
        expect(await inspector.pttl(key)).toBeGreaterThan(60_000);
      } finally {
        inspector.close();
      }
    } finally {
      await restarted.stop();
    }
  });
});
