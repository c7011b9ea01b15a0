import { createConsole } from "@tollgate/console";
import { clientAddressResolver, createApp } from "@tollgate/gateway/app";
import type { Logger } from "@tollgate/gateway/logger";
import { createChannelProber } from "@tollgate/upstream";
import { ADMIN_BRIDGE_PATH, createAdminBridge } from "./admin-bridge";
import { addressPolicyFrom, type ServerEnvironment } from "./env";
import { gatewayOptionsFrom } from "./gateway-options";
import type { Storage } from "./open-storage";
import type { ShutdownPlan } from "./shutdown";
import { createGatewayServices } from "./compose-gateway-services";

/**
 * The /v1 gateway on PORT, with the console on the same port when `withConsole` (all-in-one), and the admin
 * bridge when the database is embedded (whatever the mode: the CLI must reach whoever holds the folder).
 * Resolves once it listens, with what a shutdown stops.
 */
export async function serveGateway(input: {
  environment: ServerEnvironment;
  storage: Storage;
  log: Logger;
  withConsole: boolean;
}): Promise<Omit<ShutdownPlan, "log" | "drainMs" | "storage">> {
  const { environment, storage, log } = input;
  const { database, secretBox, setupCodes, embedded } = storage;
  const services = createGatewayServices({ database, secretBox, log, options: gatewayOptionsFrom(environment) });
  await services.start();

  const consoleApp = input.withConsole
    ? createConsole({
        database,
        secretBox,
        setupCodes,
        log,
        publicBaseUrl: environment.TOLLGATE_PUBLIC_URL,
        // Behind a trusted proxy the login limits count the client's address, as /v1's rules do.
        clientAddress: clientAddressResolver(services, () => app.server),
        // The same request building as live traffic, so every channel type can be tested.
        testChannel: createChannelProber(addressPolicyFrom(environment)),
        addressPolicy: addressPolicyFrom(environment),
        bodyReadTimeoutMs: environment.BODY_READ_TIMEOUT_MS,
        // MCP servers run as a local command are tested only where the gateway may run them.
        mcpStdioEnabled: environment.MCP_STDIO_ENABLED,
      })
    : null;
  // The app brings the rest of the server's options: the idle timeout, and a body size limit that leaves
  // oversized bodies to its own 413 envelope (MAX_BODY_BYTES) rather than Bun's bare 413.
  const app = createApp({
    services,
    fallback: consoleApp ? (request) => consoleApp.handle(request) : undefined,
    idleTimeoutSeconds: environment.HTTP_IDLE_TIMEOUT_S,
  });
  const bridge = embedded ? createAdminBridge({
        dataDir: environment.TOLLGATE_DATA_DIR,
        db: database.db,
        secretBox,
        addressPolicy: addressPolicyFrom(environment),
        mcpStdioEnabled: environment.MCP_STDIO_ENABLED,
      }) : null;
  if (bridge) {
    // The bridge checks the socket's own address: X-Forwarded-For never makes a request loopback.
    app.post(ADMIN_BRIDGE_PATH, ({ request }) => bridge.handle(request, app.server?.requestIP(request)?.address ?? null), { parse: "none" });
  }
  app.listen({ port: environment.PORT, hostname: environment.HOST });
  const server = app.server!;
  const port = server.port ?? environment.PORT;
  bridge?.advertise(port);

  const host = environment.HOST === "0.0.0.0" ? "localhost" : environment.HOST;
  log("info", "tollgate gateway listening", {
    url: `http://${host}:${port}/v1`,
    console: input.withConsole ? `http://${host}:${port}/` : "not served (gateway mode)",
    storage: embedded ? `embedded PGlite in ${environment.TOLLGATE_DATA_DIR}` : "postgres",
  });
  return { server, services, beforeDrain: bridge ? () => bridge.withdraw() : undefined };
}
