import { createConsole } from "@tollgate/console";
import { resolveClientAddress } from "@tollgate/gateway/client-address";
import type { Logger } from "@tollgate/gateway/logger";
import { createIpAllowList } from "@tollgate/gateway/policy/ip-allow-list";
import { createChannelProber } from "@tollgate/upstream";
import { addressPolicyFrom, type ServerEnvironment } from "./env";
import { gatewayOptionsFrom } from "./gateway-options";
import type { Storage } from "./open-storage";
import type { ShutdownPlan } from "./shutdown";

/** The console alone on PORT (default 3001), beside gateways that share its DATABASE_URL and TOLLGATE_SECRET. */
export function serveConsole(input: { environment: ServerEnvironment; storage: Storage; log: Logger }): Omit<ShutdownPlan, "log" | "drainMs" | "storage"> {
  const { environment, storage, log } = input;
  const { database, secretBox, setupCodes, embedded } = storage;
  let server: ReturnType<typeof Bun.serve> | null = null;
  const proxies = gatewayOptionsFrom(environment).trustedProxies ?? [];
  const trustedProxies = proxies.length > 0 ? createIpAllowList(proxies) : null;
  const consoleApp = createConsole({
    database,
    secretBox,
    setupCodes,
    log,
    publicBaseUrl: environment.TOLLGATE_PUBLIC_URL,
    // The same request building as live traffic, so every channel type can be tested.
    testChannel: createChannelProber(addressPolicyFrom(environment)),
    addressPolicy: addressPolicyFrom(environment),
    // Behind a trusted proxy the login limits count the client's address, by the gateway's rule.
    clientAddress: (request) => resolveClientAddress(server?.requestIP(request)?.address ?? null, request.headers.get("x-forwarded-for"), trustedProxies),
    bodyReadTimeoutMs: environment.BODY_READ_TIMEOUT_MS,
    // MCP servers run as a local command are tested only where the gateway may run them.
    mcpStdioEnabled: environment.MCP_STDIO_ENABLED,
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
