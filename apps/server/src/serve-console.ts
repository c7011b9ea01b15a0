import { createConsole } from "@tollgate/console";
import type { Logger } from "@tollgate/gateway/logger";
import { createChannelProber } from "@tollgate/upstream";
import type { ServerEnvironment } from "./env";
import type { Storage } from "./open-storage";
import type { ShutdownPlan } from "./shutdown";

/** The console alone on PORT (default 3001), beside gateways that share its DATABASE_URL and TOLLGATE_SECRET. */
export function serveConsole(input: { environment: ServerEnvironment; storage: Storage; log: Logger }): Omit<ShutdownPlan, "log" | "drainMs" | "storage"> {
  const { environment, storage, log } = input;
  const { database, secretBox, setupCodes, embedded } = storage;
  let server: ReturnType<typeof Bun.serve> | null = null;
  const consoleApp = createConsole({
    database,
    secretBox,
    setupCodes,
    log,
    publicBaseUrl: environment.TOLLGATE_PUBLIC_URL,
    // The same request building as live traffic, so every channel type can be tested.
    testChannel: createChannelProber(database.db, secretBox),
    clientAddress: (request) => server?.requestIP(request)?.address ?? null,
  });
  server = Bun.serve({
    port: environment.PORT,
    hostname: environment.HOST,
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
    url: `http://${environment.HOST === "0.0.0.0" ? "localhost" : environment.HOST}:${server.port}/`,
    storage: embedded ? `embedded PGlite in ${environment.TOLLGATE_DATA_DIR}` : "postgres",
  });
  return { server, services: null };
}
