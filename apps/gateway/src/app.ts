import { Elysia } from "elysia";
import { resolveClientAddress } from "./client-address";
import { errorResponse, errors, GatewayError } from "./errors";
import type { GatewayServices } from "./gateway-services";
import { ENDPOINT_TABLE } from "./endpoint-table";
import { admitCaller } from "./pipeline/admit";
import { CallRecord } from "./pipeline/call-record";
import type { Codec, WholeAnswer } from "./pipeline/codec";
import { type EndpointRow, type HandlerRow, isCodecRow, isSelfAdmittingRow } from "./pipeline/endpoint";
import { type AnswerWatch, runExchange } from "./pipeline/run-exchange";
import { handleHealth, handleReadiness } from "./routes/health";
import { createMetricsHandler } from "./routes/metrics";
import { servedEndpoints } from "./served-endpoints";

/** Bun's largest idle timeout, in seconds. */
const MAX_IDLE_TIMEOUT_S = 255;

/** What the listening server offers the app: the socket's address, and its idle timer per request. */
interface ServerHandle {
  requestIP(request: Request): { address: string } | null;
  timeout(request: Request, seconds: number): void;
}

/**
 * Passes a response body through and calls `done` once its last chunk has been handed over, before the
 * stream's end is written: the moment to give the connection its idle timeout back.
 */
function onceDrained(body: ReadableStream<Uint8Array>, done: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done: ended, value } = await reader.read();
        if (!ended) {
          controller.enqueue(value);
          return;
        }
        done();
        controller.close();
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

export interface AppDependencies {
  services: GatewayServices;
  /**
   * The peer address of a request. Defaults to the listening server's view of the socket; tests driving
   * app.handle() (no socket) pass their own.
   */
  socketAddress?: (request: Request) => string | null;
  /**
   * Answers what the /v1 API does not (the console's /trpc and SPA, when the server mounts the console on
   * this port), or null to let the gateway answer 404 in the OpenAI envelope.
   */
  fallback?: (request: Request) => Promise<Response | null>;
  /**
   * Seconds a connection may stay silent (HTTP_IDLE_TIMEOUT_S; 0: never closed, at most 255): a keep-alive
   * connection between requests, or a client slow to send its headers. A call on /v1 (or to the console)
   * lifts it while it runs and gets it back once its answer is out. Default 30.
   */
  idleTimeoutSeconds?: number;
  /** The /v1 endpoints served (ENDPOINT_TABLE); a test adds a row of its own to build the gateway with one more. */
  endpoints?: readonly EndpointRow[];
}

/** A row's path in Elysia's syntax: `{id}` -> `:id`, `{id*}` (spanning segments) -> `*`. */
function elysiaPathOf(path: string): string {
  return path.replace(/\{[^}]+\*\}/g, "*").replace(/\{([^}]+)\}/g, ":$1");
}

/** The name of a row's wildcard parameter (`{id*}` -> "id"), which Elysia reports as `*`. */
function wildcardNameOf(path: string): string | null {
  return /\{([^}]+)\*\}/.exec(path)?.[1] ?? null;
}

/**
 * A row whose path goes on after its spanning parameter (Google's custom methods:
 * `/v1beta/models/{model*}:generateContent`): Elysia's wildcard ends a path, so such rows share one route
 * per method and prefix, and the suffix picks the row.
 */
function suffixedPathOf(path: string): { prefix: string; name: string; suffix: string } | null {
  const match = /^(.*)\{([^}]+)\*\}(.+)$/.exec(path);
  return match ? { prefix: `${elysiaPathOf(match[1]!)}*`, name: match[2]!, suffix: match[3]! } : null;
}

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return errors.internal();
}

/**
 * The /v1 API as an Elysia app; the server (apps/server) listens with it and may add routes of its own.
 * The app sets the server's idle timeout and a body size limit Bun never reaches first (the handlers refuse
 * an oversized body with a 413 in the envelope, where Bun would answer a bare 413 or reset the connection).
 */
export function createApp(dependencies: AppDependencies) {
  const { services } = dependencies;
  const idleTimeoutSeconds = Math.min(MAX_IDLE_TIMEOUT_S, dependencies.idleTimeoutSeconds ?? 30);
  let serverRef: ServerHandle | null = null;
  const socketAddress =
    dependencies.socketAddress ??
    ((request: Request) => serverRef?.requestIP(request)?.address ?? null);
  // X-Forwarded-For is read only when some proxy is trusted (otherwise it is never believed).
  const clientAddressOf = (request: Request) =>
    services.trustedProxies
      ? resolveClientAddress(socketAddress(request), request.headers.get("x-forwarded-for"), services.trustedProxies)
      : socketAddress(request);

  /**
   * Runs a call without the server's idle timeout, and puts it back when the answer is out. Bun's idle timer
   * is not reset by what the server writes, so it would cut a long upstream wait, and a stream longer than
   * the timeout however busy. The body read has its own deadline (BODY_READ_TIMEOUT_MS). A streamed answer
   * gets the timeout back when its last chunk is handed over, any other when it is returned.
   */
  const withoutIdleTimeout = async (request: Request, produce: () => Promise<Response>): Promise<Response> => {
    const server = serverRef;
    if (!server || idleTimeoutSeconds === 0) return produce();
    server.timeout(request, 0);
    const restore = () => server.timeout(request, idleTimeoutSeconds);
    let response: Response;
    try {
      response = await produce();
    } catch (error) {
      restore();
      throw error;
    }
    const body = (response.headers.get("content-type") ?? "").startsWith("text/event-stream") ? response.body : null;
    if (!body) {
      restore();
      return response;
    }
    return new Response(onceDrained(body, restore), { status: response.status, headers: response.headers });
  };

  /**
   * One /v1 call through the exchange, with `codec` for its endpoint; an error is answered in the codec's
   * format. Like withoutIdleTimeout, but a streamed answer gives the idle timeout back from the relay's own
   * end (no second stream wrapped around the relay, which would cost a read and an enqueue per chunk).
   */
  const handleCall = async <Parsed, Translation, Answer extends WholeAnswer>(
    request: Request,
    codec: Codec<Parsed, Translation, Answer>,
    params: Record<string, string>,
    /** The row's path, the server span's http.route. */
    route: string,
  ) => {
    const server = serverRef;
    const lifted = server !== null && idleTimeoutSeconds !== 0;
    if (lifted) server.timeout(request, 0);
    const watch: AnswerWatch = { streaming: false, drained: () => lifted && server.timeout(request, idleTimeoutSeconds) };
    const record = new CallRecord(services, clientAddressOf(request), codec.endpoint);
    if (services.tracing) record.trace = services.tracing.startCall(request, codec.endpoint, route, record.clientAddress, record.requestId);
    try {
      const response = await runExchange(services, record, request, codec, watch, params);
      if (!watch.streaming) watch.drained();
      return response;
    } catch (error) {
      watch.drained();
      const gatewayError = toGatewayError(error);
      if (!(error instanceof GatewayError)) {
        services.log("error", "unhandled error in request", { requestId: record.requestId, error: String(error) });
      }
      const status = request.signal.aborted ? 499 : gatewayError.status;
      record.finish({ status, usage: null, errorCode: gatewayError.code, stream: record.streamRequested });
      return codec.errorResponse(gatewayError, record.answerHeaders());
    }
  };

  /**
   * One /v1 call on a plain handler (models, stored responses) inside the same wrapper as an
   * exchange: no idle timeout while it runs, a CallRecord (a request-log row, counted in flight until
   * finished), the caller let in (key, IP list, requests per minute), and an error in the row's format.
   */
  const handlePlain = (request: Request, row: HandlerRow, params: Record<string, string>) =>
    withoutIdleTimeout(request, async () => {
      const record = new CallRecord(services, clientAddressOf(request), row.endpoint);
      try {
        const caller = await admitCaller(services, record, request);
        const response = await row.handler({ services, request, record, caller, params });
        // A handler that knows more (a channel, an upstream model) has finished the record already.
        record.finish({ status: response.status, usage: null });
        return response;
      } catch (error) {
        const gatewayError = toGatewayError(error);
        if (!(error instanceof GatewayError)) {
          services.log("error", "unhandled error in request", { requestId: record.requestId, endpoint: row.endpoint, error: String(error) });
        }
        record.finish({ status: request.signal.aborted ? 499 : gatewayError.status, usage: null, errorCode: gatewayError.code });
        const headers = record.answerHeaders();
        return row.errorResponse ? row.errorResponse(gatewayError, headers, request) : errorResponse(gatewayError, headers);
      }
    });


  const metricsHandler = createMetricsHandler(services);
  const table = dependencies.endpoints ?? ENDPOINT_TABLE;
  const served = servedEndpoints(table);

  /** 405 where the path is served by another method, 404 where it is not served at all. */
  const notServed = (request: Request): Response => {
    const path = new URL(request.url).pathname;
    const allowed = served.methodsServedAt(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) return errorResponse(errors.methodNotAllowed(request.method, path, allowed));
    return errorResponse(errors.notFound(path, request.method, served.list));
  };

  const withErrors = async (handler: () => Promise<Response>): Promise<Response> => {
    try {
      return await handler();
    } catch (error) {
      if (!(error instanceof GatewayError)) services.log("error", "unhandled error", { error: String(error) });
      return errorResponse(toGatewayError(error));
    }
  };

  /**
   * The console (served from this process) reads its own bodies, under its own cap and deadline (1 MiB, not
   * /v1's limit), so that a refusal comes in its own shape and an anonymous caller never gets 16 MiB read.
   */
  const answerFromFallback = (fallback: NonNullable<AppDependencies["fallback"]>, request: Request, path: string) =>
    withoutIdleTimeout(request, () => withErrors(async () => (await fallback(request)) ?? errorResponse(errors.notFound(path, "GET", served.list))));

  const app = new Elysia({
    name: "tollgate-gateway",
    serve: { idleTimeout: idleTimeoutSeconds, maxRequestBodySize: Number.MAX_SAFE_INTEGER },
  })
    .onStart(({ server }) => {
      serverRef = server as unknown as ServerHandle;
    })
    .onError(async ({ code, request, error }) => {
      const path = new URL(request.url).pathname;
      if (code === "NOT_FOUND") {
        if (dependencies.fallback && !path.startsWith("/v1")) return answerFromFallback(dependencies.fallback, request, path);
        return notServed(request);
      }
      if (code === "PARSE") return errorResponse(errors.invalidJson("malformed body"));
      services.log("error", "framework error", { code: String(code), error: String(error) });
      return errorResponse(toGatewayError(error));
    })
    .get("/healthz", () => handleHealth())
    .get("/metrics", ({ request }) => metricsHandler(request, clientAddressOf(request)))
    .get("/readyz", () => handleReadiness(services));

  // Each row resolved once, here at startup: a codec made from the services is made now, not per request.
  type RowHandler = (request: Request, params: Record<string, string>) => Promise<Response>;
  const suffixed = new Map<string, { method: EndpointRow["method"]; prefix: string; rows: { name: string; suffix: string; handle: RowHandler }[] }>();
  for (const row of table) {
    let handle: RowHandler;
    if (isCodecRow(row)) {
      const codec = typeof row.codec === "function" ? row.codec(services) : row.codec;
      const route = row.path;
      handle = (request, params) => handleCall(request, codec, params, route);
    } else if (isSelfAdmittingRow(row)) {
      handle = (request, params) =>
        withoutIdleTimeout(request, () => withErrors(() => row.serve({ services, request, clientAddress: clientAddressOf(request), params })));
    } else {
      handle = (request, params) => handlePlain(request, row, params);
    }
    const custom = suffixedPathOf(row.path);
    if (custom) {
      const key = `${row.method} ${custom.prefix}`;
      const group = suffixed.get(key) ?? { method: row.method, prefix: custom.prefix, rows: [] };
      group.rows.push({ name: custom.name, suffix: custom.suffix, handle });
      suffixed.set(key, group);
      continue;
    }
    if (isCodecRow(row) && !row.path.includes("{")) {
      // A path without parameters (the hot /v1 endpoints): the handler leaves Elysia's params alone, so none
      // are computed for it.
      app.route(row.method, row.path, ({ request }) => handle(request, NO_PARAMS), { parse: "none" });
      continue;
    }
    const wildcard = wildcardNameOf(row.path);
    app.route(
      row.method,
      elysiaPathOf(row.path),
      ({ request, params }) => {
        const named = (params ?? NO_PARAMS) as Record<string, string>;
        return handle(request, wildcard === null ? named : { ...named, [wildcard]: named["*"] ?? "" });
      },
      { parse: "none" },
    );
  }
  for (const { method, prefix, rows } of suffixed.values()) {
    app.route(
      method,
      prefix,
      ({ request, params }) => {
        const value = (params as Record<string, string>)["*"] ?? "";
        const row = rows.find((candidate) => value.length > candidate.suffix.length && value.endsWith(candidate.suffix));
        if (!row) return notServed(request);
        return row.handle(request, { [row.name]: value.slice(0, -row.suffix.length) });
      },
      { parse: "none" },
    );
  }

  return app;
}

/** The socket address as the app sees it, with trusted proxies applied (for the console's login limits). */
export function clientAddressResolver(services: GatewayServices, server: () => { requestIP(request: Request): { address: string } | null } | null | undefined) {
  return (request: Request) =>
    resolveClientAddress(
      server()?.requestIP(request)?.address ?? null,
      request.headers.get("x-forwarded-for"),
      services.trustedProxies,
    );
}

export type GatewayApp = ReturnType<typeof createApp>;
