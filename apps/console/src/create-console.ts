import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChannelProber, describeUnexpectedError, type SetupCodes } from "@tollgate/admin";
import type { DatabaseHandle } from "@tollgate/db";
import { DEFAULT_UPSTREAM_ADDRESS_POLICY, type BodyCap, declaresTooLarge, NON_API_MAX_BODY_BYTES, type SecretBox, type UpstreamAddressPolicy, withCappedBody } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createLoginRateLimiter, type LoginLimits } from "./auth/login-rate-limiter";
import { createOidcSignIn, type OidcSettings } from "./auth/oidc-sign-in";
import { DEFAULT_SESSION_TTL_MS } from "./auth/sessions";
import { type AppRouter, appRouter } from "./routers/app-router";
import { createExportHandler } from "./export/export-csv";
import { ApiError } from "./api/api-error";
import { createManagementApi } from "./api/management-api";
import { createStaticHandler } from "./static-files";
import { type ConsoleContext, type ConsoleLog, createCallerFactory, sessionSecretFrom } from "./trpc";

export type { AppRouter } from "./routers/app-router";
export type { ChannelTestResult, ConsoleLog } from "./trpc";
export type { OidcSettings } from "./auth/oidc-sign-in";

/** apps/web/dist, where `bun run --cwd apps/web build` writes the SPA. */
export const defaultWebDistDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "web", "dist");

export interface ConsoleDependencies {
  database: DatabaseHandle;
  secretBox: SecretBox;
  log?: ConsoleLog;
  /** Base URL clients use, for the Quick start panel (without /v1); default: from the request's Host. */
  publicBaseUrl?: string;
  /**
   * Sends a tiny real request through a channel, for the Test button: the gateway's prober (the composition
   * root passes it), so that a test exercises the request building of live traffic for every channel type.
   */
  testChannel: ChannelProber;
  /** Which hosts channels and the spend-alert webhook may point at; default: private networks allowed (UPSTREAM_ALLOW_PRIVATE_NETWORKS). */
  addressPolicy?: UpstreamAddressPolicy;
  /** MCP_STDIO_ENABLED: the MCP servers page's Test may run a stdio server's command. */
  mcpStdioEnabled?: boolean;
  /**
   * The first-run setup codes (the server derives them from its secret): while no administrator exists the
   * console offers its first-run page, which asks for the current code. Null: no first-run page (the CLI's
   * `user create --admin` only).
   */
  setupCodes: SetupCodes | null;
  /** The built SPA; default apps/web/dist. */
  webDistDir?: string;
  /** The client's address (for the per-IP login limit), e.g. the gateway's trusted-proxy-aware resolver. */
  clientAddress?: (request: Request) => string | null;
  /** Sign-in limits; default 3 failures per (name, address), then waits from 1 s doubling up to 15 minutes, and 20 per address in 15 minutes. */
  loginLimits?: Partial<LoginLimits>;
  /** Largest request body (tRPC calls and anything else the console answers); default 1 MiB. */
  maxBodyBytes?: number;
  /** Time allowed to receive a request body (BODY_READ_TIMEOUT_MS); default 30 s. */
  bodyReadTimeoutMs?: number;
  /** Session lifetime after the last renewal; default 7 days. */
  sessionTtlMs?: number;
  /** Single sign-on (OIDC_* in the server's env); absent: password sign-in only. */
  oidc?: OidcSettings | null;
}

/** What a direct (in-process) caller presents instead of an HTTP request: cookies, address, https. */
export interface CallerOptions {
  /** Request headers, typically `{ cookie }`. */
  headers?: HeadersInit;
  clientIp?: string | null;
  /** Receives Set-Cookie from login, setup and logout. */
  responseHeaders?: Headers;
  /** Pretends the request came to this URL (https: sets Secure cookies; its origin feeds Quick start). */
  url?: string;
}

export interface Console {
  /** Answers /trpc/*, the management API (/api/v1/*), the CSV exports (/export/*.csv) and the SPA; null for anything else (/v1/*, other methods), for the host to 404. */
  handle(request: Request): Promise<Response | null>;
  appRouter: AppRouter;
  createCaller(options?: CallerOptions): ReturnType<AppRouter["createCaller"]>;
}

const noLog: ConsoleLog = () => {};

function isSecure(url: URL, headers: Headers): boolean {
  return url.protocol === "https:" || headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** Procedures in one batched call; the SPA's batch link sends no more (apps/web/src/trpc.ts). */
export const MAX_BATCH_SIZE = 20;

const payloadTooLarge = () => new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: "The request body is too large" });

/**
 * A copy of `request` whose body fails at once with `reason`: tRPC answers it in its own error shape. As
 * JSON whatever it claimed to be, so that tRPC reads (and refuses) it rather than answer about its type.
 */
function failingBody(request: Request, reason: unknown): Request {
  const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(reason) });
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.set("content-type", "application/json");
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
}

export function createConsole(deps: ConsoleDependencies): Console {
  const log = deps.log ?? noLog;
  const maxBodyBytes = deps.maxBodyBytes ?? NON_API_MAX_BODY_BYTES;
  const bodyCap: BodyCap = {
    maxBytes: maxBodyBytes,
    timeoutMs: deps.bodyReadTimeoutMs ?? 30_000,
    tooLarge: payloadTooLarge,
    tooSlow: () => new TRPCError({ code: "TIMEOUT", message: "The request body did not arrive in time" }),
  };
  const db = deps.database.db;
  const loginLimiter = createLoginRateLimiter(deps.loginLimits);
  const sessionTtlMs = deps.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const serveStatic = createStaticHandler(deps.webDistDir ?? defaultWebDistDir);
  const publicBaseUrl = deps.publicBaseUrl?.replace(/\/+$/, "");
  const oidcSignIn = deps.oidc ? createOidcSignIn({ settings: deps.oidc, db, secretBox: deps.secretBox, sessionTtlMs, log }) : null;

  const contextFor = (url: URL, headers: Headers, clientIp: string | null, responseHeaders: Headers): ConsoleContext => {
    const secure = isSecure(url, headers);
    return {
      db,
      secretBox: deps.secretBox,
      log,
      setupCodes: deps.setupCodes,
      loginLimiter,
      sessionTtlMs,
      testChannel: deps.testChannel,
      addressPolicy: deps.addressPolicy ?? DEFAULT_UPSTREAM_ADDRESS_POLICY,
      mcpStdioEnabled: deps.mcpStdioEnabled ?? false,
      publicBaseUrl: publicBaseUrl ?? `${secure ? "https:" : url.protocol}//${url.host}`,
      clientIp,
      secure,
      sessionSecret: sessionSecretFrom(headers),
      responseHeaders,
      oidc: oidcSignIn ? { displayName: oidcSignIn.displayName, only: oidcSignIn.only, providerLogout: oidcSignIn.providerLogout } : null,
    };
  };

  /** A browser sends Origin on POST: refuse cross-site ones (SameSite=Lax already withholds the cookie). */
  const isCrossSite = (request: Request, url: URL): boolean => {
    const origin = request.headers.get("origin");
    if (!origin || request.method === "GET" || request.method === "HEAD") return false;
    try {
      const host = new URL(origin).host;
      return host !== url.host && host !== request.headers.get("x-forwarded-host") && (!publicBaseUrl || host !== new URL(publicBaseUrl).host);
    } catch {
      return true;
    }
  };

  const callerFactory = createCallerFactory(appRouter);
  const managementApi = createManagementApi({
    db,
    secretBox: deps.secretBox,
    addressPolicy: deps.addressPolicy ?? DEFAULT_UPSTREAM_ADDRESS_POLICY,
    testChannel: deps.testChannel,
    log,
    bodyCap: {
      ...bodyCap,
      tooLarge: () => new ApiError(413, "request_too_large", `Request body exceeds the limit of ${maxBodyBytes} bytes.`),
      tooSlow: () => new ApiError(408, "request_timeout", "The request body did not arrive in time"),
    },
  });
  const serveExport = createExportHandler({ db, sessionTtlMs, log, secureFor: isSecure, sessionSecret: sessionSecretFrom });

  return {
    appRouter,
    createCaller(options = {}) {
      const url = new URL(options.url ?? "http://localhost/");
      const responseHeaders = options.responseHeaders ?? new Headers();
      return callerFactory(contextFor(url, new Headers(options.headers), options.clientIp ?? null, responseHeaders));
    },
    async handle(request) {
      const url = new URL(request.url);
      if (url.pathname === "/trpc" || url.pathname.startsWith("/trpc/")) {
        if (isCrossSite(request, url)) {
          return Response.json({ error: { message: "Cross-site request refused" } }, { status: 403 });
        }
        const clientIp = deps.clientAddress?.(request) ?? null;
        return fetchRequestHandler({
          endpoint: "/trpc",
          // Over the cap by its Content-Length: refused before a byte is read; otherwise the bytes are
          // counted as tRPC reads them. Either way the refusal is tRPC's own 413 (or 408), in its shape.
          req: declaresTooLarge(request, maxBodyBytes) ? failingBody(request, payloadTooLarge()) : withCappedBody(request, bodyCap),
          router: appRouter,
          maxBatchSize: MAX_BATCH_SIZE,
          createContext: ({ req, resHeaders }) => contextFor(url, req.headers, clientIp, resHeaders),
          onError: ({ error, path }) => {
            if (error.code === "INTERNAL_SERVER_ERROR") log("error", "console procedure failed", { path, error: describeUnexpectedError(error) });
          },
          responseMeta: () => ({ headers: { "cache-control": "no-store" } }),
        });
      }
      if (url.pathname === "/v1" || url.pathname.startsWith("/v1/")) return null;
      const answeredByApi = await managementApi.handle(request, deps.clientAddress?.(request) ?? null);
      if (answeredByApi) return answeredByApi;
      if (declaresTooLarge(request, maxBodyBytes)) {
        const error = { message: `Request body exceeds the limit of ${maxBodyBytes} bytes.`, type: "invalid_request_error", param: null, code: "request_too_large" };
        return Response.json({ error }, { status: 413 });
      }
      if (oidcSignIn && url.pathname.startsWith("/auth/oidc/")) {
        const secure = isSecure(url, request.headers);
        const answered = await oidcSignIn.handle(request, url, {
          secure,
          publicOrigin: publicBaseUrl ?? `${secure ? "https:" : url.protocol}//${url.host}`,
          clientAddress: deps.clientAddress?.(request) ?? null,
        });
        if (answered) return answered;
      }
      const exported = await serveExport(request, url);
      if (exported) return exported;
      if (request.method !== "GET" && request.method !== "HEAD") return null;
      return serveStatic(request, url);
    },
  };
}
