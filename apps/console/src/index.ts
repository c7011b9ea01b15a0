import { lockDataDirWhenFree, migrateDatabase, openDatabase, resolveEncryptionSecret } from "@tollgate/db";
import { createSecretBox } from "@tollgate/shared";
import { createConsole } from "./create-console";
import { readConsoleEnv } from "./env";
import type { ConsoleLog } from "./trpc";
import { createChannelProber } from "@tollgate/upstream";

// The console as its own process (`start:console`), for deployments on DATABASE_URL where gateways scale
// separately. `npm start` instead mounts createConsole() inside the gateway process.
const env = readConsoleEnv();
const ranks = { debug: 10, info: 20, warn: 30, error: 40 } as const;
const log: ConsoleLog = (level, message, fields) => {
  if (ranks[level] < ranks[env.LOG_LEVEL]) return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
};
const embedded = !env.DATABASE_URL;

let dataDirLock: { release(): void } | null = null;
if (embedded) {
  const lock = await lockDataDirWhenFree(env.TOLLGATE_DATA_DIR, "server", { timeoutMs: 30_000, stopIfServer: true });
  if (!("release" in lock)) {
    console.error(
      `tollgate console: the data folder ${env.TOLLGATE_DATA_DIR} is in use (pid ${lock.pid}). With the embedded ` +
        "database the console runs inside `npm start`; run it standalone only with DATABASE_URL.",
    );
    process.exit(1);
  }
  dataDirLock = lock;
  process.on("exit", () => dataDirLock?.release());
}

const database = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR, poolSize: env.DATABASE_POOL_SIZE });
await migrateDatabase(database);
const secretBox = await createSecretBox(
  resolveEncryptionSecret({ secret: env.TOLLGATE_SECRET, databaseUrl: env.DATABASE_URL, dataDir: env.TOLLGATE_DATA_DIR }),
);

let server: ReturnType<typeof Bun.serve> | null = null;
const consoleApp = createConsole({
  database,
  secretBox,
  log,
  embedded,
  publicBaseUrl: env.TOLLGATE_PUBLIC_URL,
  // The same request building as live traffic, so every channel type can be tested.
  testChannel: createChannelProber(database.db, secretBox),
  clientAddress: (request) => server?.requestIP(request)?.address ?? null,
});
server = Bun.serve({
  port: env.PORT,
  hostname: env.HOST,
  async fetch(request) {
    const response = await consoleApp.handle(request);
    if (response) return response;
    const path = new URL(request.url).pathname;
    return Response.json(
      { error: { message: `Unknown path ${request.method} ${path} (the API is served by the gateway)`, type: "invalid_request_error", param: null, code: "unknown_url" } },
      { status: 404 },
    );
  },
});
log("info", "tollgate console listening", {
  url: `http://${env.HOST === "0.0.0.0" ? "localhost" : env.HOST}:${server.port}/`,
  storage: embedded ? `embedded PGlite in ${env.TOLLGATE_DATA_DIR}` : "postgres",
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log("info", "shutting down", { signal });
  await server?.stop(false);
  await database.close();
  dataDirLock?.release();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
