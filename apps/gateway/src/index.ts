import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "@tollgate/cli/run-command";
import { createConsole } from "@tollgate/console";
import { lockDataDirWhenFree, migrateDatabase, openDatabase, resolveEncryptionSecret } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { clientAddressResolver, createApp } from "./app";
import { readGatewayEnv } from "./env";
import { createGatewayServices } from "./gateway-services";
import { createLogger } from "./logger";
import { createChannelProber } from "@tollgate/upstream";

const env = readGatewayEnv();
const log = createLogger(env.LOG_LEVEL);
const embedded = !env.DATABASE_URL;
// `npm start` serves the console from this process too; `start:gateway` (scale-out) passes --gateway-only.
const serveConsole = !process.argv.includes("--gateway-only");

// Only one process may open an embedded data folder: wait for a CLI command that has it, refuse to share
// it with another server.
let dataDirLock: { release(): void } | null = null;
if (embedded) {
  const lock = await lockDataDirWhenFree(env.TOLLGATE_DATA_DIR, "server", { timeoutMs: 30_000, stopIfServer: true });
  if (!("release" in lock)) {
    console.error(
      `tollgate: the data folder ${env.TOLLGATE_DATA_DIR} is in use by another ${lock.role === "server" ? "Tollgate server" : "CLI command"} (pid ${lock.pid}). ` +
        "Stop it, or give this one another TOLLGATE_DATA_DIR (or a DATABASE_URL to share a database).",
    );
    process.exit(1);
  }
  dataDirLock = lock;
  process.on("exit", () => dataDirLock?.release());
}

const database = await openDatabase({
  databaseUrl: env.DATABASE_URL,
  dataDir: env.TOLLGATE_DATA_DIR,
  poolSize: env.DATABASE_POOL_SIZE,
});
await migrateDatabase(database);
const secretBox = await createSecretBox(
  resolveEncryptionSecret({ secret: env.TOLLGATE_SECRET, databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR }),
);
const services = createGatewayServices({
  database,
  secretBox,
  log,
  options: {
    maxBodyBytes: env.MAX_BODY_BYTES,
    trustedProxies: env.TRUSTED_PROXIES.split(",").map((entry) => entry.trim()).filter(Boolean),
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
    usageFlushIntervalMs: env.USAGE_FLUSH_INTERVAL_MS,
    usageBufferMax: env.USAGE_BUFFER_MAX,
    usageWriterThread: env.USAGE_WRITER_THREAD,
    maxUpstreamAttempts: Math.max(1, env.UPSTREAM_MAX_ATTEMPTS),
    logRequests: env.LOG_REQUESTS,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    metricsToken: env.METRICS_TOKEN,
    metricsAllowedIps: env.METRICS_ALLOWED_IPS.split(",").map((entry) => entry.trim()).filter(Boolean),
    streamIdleTimeoutMs: env.STREAM_IDLE_TIMEOUT_MS,
    usageSpoolDir: env.USAGE_SPOOL_DIR ?? join(env.TOLLGATE_DATA_DIR, "spool"),
    usageSpoolSyncMs: env.USAGE_SPOOL_SYNC_MS,
    usageWriteStallMs: env.USAGE_WRITE_STALL_MS,
    cacheMaxAgeMs: env.CACHE_MAX_AGE_MS,
    listenerCheckIntervalMs: env.LISTENER_CHECK_INTERVAL_MS,
    bodyReadTimeoutMs: env.BODY_READ_TIMEOUT_MS,
    channelHealth: {
      failureThreshold: Math.max(1, env.CHANNEL_FAILURE_THRESHOLD),
      windowMs: env.CHANNEL_FAILURE_WINDOW_MS,
      cooldownMs: env.CHANNEL_COOLDOWN_MS,
      maxCooldownMs: env.CHANNEL_COOLDOWN_MS * 10,
    },
  },
});
await services.start();

// In embedded mode only this process may open the data folder, so the CLI forwards its commands here,
// authenticated by a secret in a file only the owner of the data folder can read.
const adminSecret = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
let serverOfApp: (() => { requestIP(request: Request): { address: string } | null } | null | undefined) | null = null;
const consoleApp = serveConsole
  ? createConsole({
      database,
      secretBox,
      embedded,
      log: (level, message, fields) => log(level, message, fields),
      clientAddress: clientAddressResolver(services, () => serverOfApp?.()),
      testChannel: createChannelProber(database.db, secretBox),
    })
  : null;
const app = createApp({
  services,
  fallback: consoleApp ? (request) => consoleApp.handle(request) : undefined,
  adminCli: embedded ? { secret: adminSecret, run: (argv) => runCommand(argv, { db: database.db, secretBox }) } : undefined,
  idleTimeoutSeconds: env.HTTP_IDLE_TIMEOUT_S,
});
// The app brings the rest of the server's options: the idle timeout above, and a body size limit that
// leaves oversized bodies to its own 413 envelope (MAX_BODY_BYTES) rather than Bun's bare 413.
app.listen({ port: env.PORT, hostname: env.HOST });
serverOfApp = () => app.server as never;
const port = app.server?.port ?? env.PORT;
const serverFile = join(env.TOLLGATE_DATA_DIR, "server.json");
if (embedded) {
  writeFileSync(serverFile, JSON.stringify({ pid: process.pid, port, adminSecret }), { mode: 0o600 });
}
log("info", "tollgate gateway listening", {
  url: `http://${env.HOST === "0.0.0.0" ? "localhost" : env.HOST}:${port}/v1`,
  console: serveConsole ? `http://${env.HOST === "0.0.0.0" ? "localhost" : env.HOST}:${port}/` : "not served (--gateway-only)",
  storage: embedded ? `embedded PGlite in ${env.TOLLGATE_DATA_DIR}` : "postgres",
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log("info", "shutting down: finishing in-flight requests and writing usage", { signal });
  if (embedded) rmSync(serverFile, { force: true });
  const server = app.server;
  // Stop accepting; let in-flight requests and streams finish for up to SHUTDOWN_DRAIN_MS, then cut them.
  const drained = server?.stop(false);
  const finished = await Promise.race([drained?.then(() => true), Bun.sleep(env.SHUTDOWN_DRAIN_MS).then(() => false)]);
  if (!finished) {
    log("warn", "drain limit reached: cutting the calls still in flight (each is billed for what it produced)", { calls: services.calls.size });
  }
  await server?.stop(true);
  // A cut stream settles its bill when its relay sees the cancellation: wait for that before the write-behind stops.
  if (!(await services.calls.idle(5_000))) log("warn", "calls still unaccounted after the cut", { calls: services.calls.size });
  await services.stop();
  await database.close();
  dataDirLock?.release();
  log("info", "stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
