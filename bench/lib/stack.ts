import { withRuntimeDefaults } from "../../scripts/runtime-env.mjs";
import { mkdtempSync, rmSync } from "node:fs";
import { SQL } from "bun";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, resultRows } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { run, type Service, startService } from "./processes";

export const root = join(import.meta.dir, "..", "..");
export const BENCH_MODEL = "gpt-bench";

export interface StackOptions {
  /** Also start the bare Bun.serve + fetch proxy. */
  proxy?: boolean;
  /** Extra Bun flags for the gateway process, e.g. ["--cpu-prof", "--cpu-prof-dir=/tmp/x"]. */
  gatewayBunFlags?: string[];
  /** Wraps the commands of the proxy and the gateway (e.g. ["taskset", "-c", "0"] pins them to a core). */
  serverArgvPrefix?: string[];
  /** Wraps the fake upstream's command. */
  upstreamArgvPrefix?: string[];
  /** Extra environment of the fake upstream (its delays). */
  upstreamEnv?: Record<string, string>;
  /** The gateway's entry file (default apps/server/src/index.ts), e.g. a bench-only entry that reports its heap. */
  gatewayEntry?: string;
  /** Extra environment of the gateway. */
  gatewayEnv?: Record<string, string>;
}

/**
 * The rules the bench token is created with; BENCH_TOKEN_RULES_OFF (comma-separated names) creates it
 * without some, to measure what each costs. Bench-only: the gateway is the same, the token has fewer limits.
 */
const tokenRules: Record<string, string[]> = {
  quota: ["--quota", "1000000"],
  expires: ["--expires", "2099-12-31"],
  models: ["--models", `${BENCH_MODEL},gpt-other`],
  ip: ["--ip", "127.0.0.1,::1,10.0.0.0/8"],
  rpm: ["--rpm", "1000000000"],
};

export function benchTokenRules(): string[] {
  const off = new Set((process.env.BENCH_TOKEN_RULES_OFF ?? "").split(",").map((name) => name.trim()).filter(Boolean));
  for (const name of off) if (!(name in tokenRules)) throw new Error(`BENCH_TOKEN_RULES_OFF: unknown rule ${name}; one of ${Object.keys(tokenRules).join(", ")}`);
  return [...Object.entries(tokenRules).flatMap(([name, flags]) => (off.has(name) ? [] : flags)), ...responseCacheRule()];
}

/**
 * BENCH_CACHE=hit: the bench token caches answers (every call after the first is a hit: the hit path's cost);
 * BENCH_CACHE=refresh: it caches, and every call asks x-tollgate-cache: refresh (a miss that stores: the miss
 * path's cost). Unset: no cache, the path every call takes by default.
 */
function responseCacheRule(): string[] {
  const mode = process.env.BENCH_CACHE;
  if (mode === undefined || mode === "") return [];
  if (mode !== "hit" && mode !== "refresh") throw new Error(`BENCH_CACHE: ${mode}; one of hit, refresh`);
  return ["--cache-ttl", "3600"];
}

/** The headers of a call to the gateway: the bench key, and the cache header BENCH_CACHE=refresh asks for. */
export function gatewayHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...(process.env.BENCH_CACHE === "refresh" ? { "x-tollgate-cache": "refresh" } : {}) };
}

export interface Stack {
  upstream: Service;
  proxy: Service | null;
  gateway: Service;
  /** The bench token's secret (sk-...). */
  key: string;
  dataDir: string;
  /** "embedded PGlite" or "postgres". */
  storage: string;
  /**
   * Stops the gateway with SIGTERM (which writes what it buffered) and counts the request-log rows it left:
   * one per request it answered, if nothing accepted was lost.
   */
  stopGatewayAndCountLogs(): Promise<number>;
  stop(): Promise<void>;
}

/** A database of its own on the server of BENCH_DATABASE_URL, dropped when the bench ends. */
async function createBenchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tollgate_bench_${process.pid}_${Date.now()}`;
  const admin = new SQL(serverUrl);
  await admin.unsafe(`create database ${name}`);
  await admin.close();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new SQL(serverUrl);
      await cleanup.unsafe(`drop database if exists ${name} with (force)`);
      await cleanup.close();
    },
  };
}

/**
 * Environment of every bench process. Bun's fetch keeps at most BUN_CONFIG_MAX_HTTP_REQUESTS (default 256)
 * requests in flight per process and queues the rest, which would cap 1,000 concurrent streams in the
 * driver, the proxy and the gateway alike; the bench raises it for all of them (BENCH_MAX_HTTP_REQUESTS).
 * Every process gets the servers' runtime defaults (scripts/runtime-env.mjs: the collector's pacing), as
 * `npm start` and the Dockerfile give them; BUN_JSC_forceRAMSize=0 measures without the pacing.
 */
export function benchEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...withRuntimeDefaults(process.env),
    BUN_CONFIG_MAX_HTTP_REQUESTS: process.env.BENCH_MAX_HTTP_REQUESTS ?? "4096",
    ...extra,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}

/**
 * The fake upstream, optionally the bare proxy, and the real gateway on a fresh embedded PGlite folder,
 * seeded through the operator CLI (forwarded to the running gateway) with every rule in force: a user
 * with a finite balance, a priced model, and a token with an expiry, a quota, a model allow-list, an IP
 * allow-list holding 127.0.0.1 and an RPM limit far above what the bench sends. With BENCH_DATABASE_URL
 * (a Postgres server URL) the gateway runs on a fresh database there instead.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const bun = process.execPath;
  const serverPrefix = options.serverArgvPrefix ?? [];
  const upstream = await startService(
    "fake upstream",
    [...(options.upstreamArgvPrefix ?? []), bun, join(root, "bench/fake-upstream.ts")],
    benchEnv({ PORT: "0", ...options.upstreamEnv }),
  );
  let proxy: Service | null = null;
  let gateway: Service | null = null;
  // BENCH_TRACING=1: the gateway exports its spans (OTLP/HTTP) to a sink of its own, beside the upstream.
  const otlpSink =
    process.env.BENCH_TRACING === "1"
      ? await startService("OTLP sink", [...(options.upstreamArgvPrefix ?? []), bun, join(root, "bench/otlp-sink.ts")], benchEnv({ PORT: "0" }))
      : null;
  const dataDir = mkdtempSync(join(tmpdir(), "tollgate-bench-"));
  const database = process.env.BENCH_DATABASE_URL ? await createBenchDatabase(process.env.BENCH_DATABASE_URL) : null;
  const stopAll = async () => {
    await Promise.all([gateway?.stop(), proxy?.stop(), upstream.stop()]);
    // After the gateway: its last spans are exported as it stops.
    await otlpSink?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (options.proxy) {
      proxy = await startService("bare proxy", [...serverPrefix, bun, join(root, "bench/bare-proxy.ts")], benchEnv({ PORT: "0", UPSTREAM_URL: upstream.url }));
    }
    const gatewayEnv = benchEnv({
      PORT: "0",
      HOST: "127.0.0.1",
      TOLLGATE_DATA_DIR: dataDir,
      DATABASE_URL: database?.url,
      TOLLGATE_SECRET: database ? "bench-secret-0123456789abcdef" : undefined,
      REDIS_URL: process.env.BENCH_GATEWAY_REDIS_URL,
      LOG_LEVEL: process.env.BENCH_GATEWAY_LOG_LEVEL ?? "info",
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpSink?.url,
      ...options.gatewayEnv,
    });
    gateway = await startService(
      "gateway",
      [...serverPrefix, bun, ...(process.env.BENCH_GATEWAY_BUN_FLAGS?.split(" ").filter(Boolean) ?? []), ...(options.gatewayBunFlags ?? []), options.gatewayEntry ?? join(root, "apps/server/src/index.ts")],
      gatewayEnv,
      root,
    );
    const cli = (...argv: string[]) => run([bun, join(root, "apps/cli/src/index.ts"), ...argv], gatewayEnv, root);
    await cli("user", "create", "--name", "bench", "--balance", "1000000");
    await cli("channel", "add", "--name", "bench-upstream", "--type", "openai-compatible", "--base-url", upstream.url, "--key", "sk-bench-upstream", "--models", BENCH_MODEL);
    await cli("model", "price", "--model", BENCH_MODEL, "--input", "0.15", "--output", "0.6");
    const created = await cli(
      "token", "create", "--user", "bench", "--name", "bench", ...benchTokenRules(), "--json",
    );
    const { key } = JSON.parse(created) as { key: string };
    const service = gateway;
    const stopGatewayAndCountLogs = async () => {
      await service.stop();
      const handle = await openDatabase(database ? { databaseUrl: database.url, poolSize: 1 } : { dataDir });
      try {
        const [row] = resultRows(await handle.db.execute(sql`select count(*)::int as rows from request_logs`));
        return Number(row!.rows);
      } finally {
        await handle.close();
      }
    };
    return { upstream, proxy, gateway, key, dataDir, storage: database ? "postgres" : "embedded PGlite", stopGatewayAndCountLogs, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export function chatBody(stream: boolean): string {
  return JSON.stringify({
    model: BENCH_MODEL,
    messages: [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Write one sentence about foxes." },
    ],
    max_tokens: 100,
    ...(stream ? { stream: true } : {}),
  });
}
