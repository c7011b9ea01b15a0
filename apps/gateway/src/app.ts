import { Elysia } from "elysia";
import { resolveClientAddress } from "./client-address";
import { errorResponse, errors, GatewayError } from "./errors";
import type { GatewayServices } from "./gateway-services";
import { CallContext } from "./routes/call-context";
import { handleChatCompletions, handleTextCompletions } from "./routes/chat-completions";
import { handleHealth, handleReadiness } from "./routes/health";
import { handleMessages } from "./routes/messages";
import { createMetricsHandler } from "./routes/metrics";
import { anthropicErrorResponse } from "./messages-api/anthropic-error";
import { handleEmbeddings } from "./routes/embeddings";
import { handleListModels, handleRetrieveModel } from "./routes/models";

export interface AppDependencies {
  services: GatewayServices;
  /**
   * The peer address of a request. Defaults to the listening server's view of the socket; tests driving
   * app.handle() (no socket) pass their own.
   */
  socketAddress?: (request: Request) => string | null;
  /**
   * Answers what the /v1 API does not (the console's /trpc and SPA when served from this process), or
   * null to let the gateway answer 404 in the OpenAI envelope.
   */
  fallback?: (request: Request) => Promise<Response | null>;
  /** Embedded mode only: runs an operator CLI command in this process (the CLI forwards here). */
  adminCli?: { secret: string; run: (argv: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }> };
}

function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return errors.internal();
}

/** The /v1 API as an Elysia app; index.ts is the only place that listens. */
export function createApp(dependencies: AppDependencies) {
  const { services } = dependencies;
  let serverRef: { requestIP(request: Request): { address: string } | null } | null = null;
  const socketAddress =
    dependencies.socketAddress ?? ((request: Request) => serverRef?.requestIP(request)?.address ?? null);
  const clientAddressOf = (request: Request) =>
    resolveClientAddress(socketAddress(request), request.headers.get("x-forwarded-for"), services.trustedProxies);

  const handleCall = async (
    request: Request,
    endpoint: string,
    handler: (context: CallContext) => Promise<Response>,
    respondWithError: (error: GatewayError, headers: Record<string, string>) => Response = errorResponse,
  ): Promise<Response> => {
    const context = new CallContext(services, request, clientAddressOf(request), endpoint);
    try {
      return await handler(context);
    } catch (error) {
      const gatewayError = toGatewayError(error);
      if (!(error instanceof GatewayError)) {
        services.log("error", "unhandled error in request", { requestId: context.requestId, error: String(error) });
      }
      const status = request.signal.aborted ? 499 : gatewayError.status;
      context.finish({ status, usage: null, errorCode: gatewayError.code, stream: context.body?.value.stream === true });
      return respondWithError(gatewayError, { ...context.rateLimitHeaders, "x-request-id": context.requestId });
    }
  };

  const metricsHandler = createMetricsHandler(services);

  const withErrors = async (handler: () => Promise<Response>): Promise<Response> => {
    try {
      return await handler();
    } catch (error) {
      if (!(error instanceof GatewayError)) services.log("error", "unhandled error", { error: String(error) });
      return errorResponse(toGatewayError(error));
    }
  };

  const app = new Elysia({ name: "tollgate-gateway" })
    .onStart(({ server }) => {
      serverRef = server as typeof serverRef;
    })
    .onError(async ({ code, request, error }) => {
      const path = new URL(request.url).pathname;
      if (code === "NOT_FOUND") {
        const answer = dependencies.fallback && !path.startsWith("/v1") ? await dependencies.fallback(request) : null;
        return answer ?? errorResponse(errors.notFound(path));
      }
      if (code === "PARSE") return errorResponse(errors.invalidJson("malformed body"));
      services.log("error", "framework error", { code: String(code), error: String(error) });
      return errorResponse(toGatewayError(error));
    })
    .post("/v1/chat/completions", ({ request }) => handleCall(request, "chat.completions", handleChatCompletions), {
      parse: "none",
    })
    .post(
      "/v1/messages",
      ({ request }) =>
        handleCall(request, "messages", handleMessages, (error, headers) =>
          anthropicErrorResponse(error.status, error.message, { ...error.headers, ...headers }),
        ),
      { parse: "none" },
    )
    .post("/v1/completions", ({ request }) => handleCall(request, "completions", handleTextCompletions), {
      parse: "none",
    })
    .get("/healthz", () => handleHealth())
    .get("/metrics", ({ request }) => metricsHandler(request, clientAddressOf(request)))
    .get("/readyz", () => handleReadiness(services))
    .post("/v1/embeddings", ({ request }) => handleCall(request, "embeddings", handleEmbeddings), { parse: "none" })
    .get("/v1/models", ({ request }) => withErrors(() => handleListModels(services, request, clientAddressOf(request))))
    .get("/v1/models/*", ({ request, params }) =>
      withErrors(() => handleRetrieveModel(services, request, clientAddressOf(request), decodeURIComponent(params["*"]))),
    );

  if (dependencies.adminCli) {
    const adminCli = dependencies.adminCli;
    app.post(
      "/internal/admin-cli",
      async ({ request }) => {
        const address = socketAddress(request);
        const loopback = address === "127.0.0.1" || address === "::1" || address === "::ffff:127.0.0.1";
        if (!loopback || request.headers.get("authorization") !== `Bearer ${adminCli.secret}`) {
          return errorResponse(errors.notFound(new URL(request.url).pathname));
        }
        const body = (await request.json().catch(() => null)) as { argv?: unknown } | null;
        if (!body || !Array.isArray(body.argv) || !body.argv.every((item) => typeof item === "string")) {
          return errorResponse(errors.invalidParameter("argv", "argv must be an array of strings"));
        }
        return Response.json(await adminCli.run(body.argv as string[]));
      },
      { parse: "none" },
    );
  }
  return app;
}

/** The socket address as the app sees it, with trusted proxies applied (for the console's login limits). */
export function clientAddressResolver(services: GatewayServices, server: () => { requestIP(request: Request): { address: string } | null } | null | undefined) {
  return (request: Request) =>
    resolveClientAddress(server()?.requestIP(request)?.address ?? null, request.headers.get("x-forwarded-for"), services.trustedProxies);
}

export type GatewayApp = ReturnType<typeof createApp>;
