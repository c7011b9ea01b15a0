import { AdminError, type AdminErrorCode, type ChannelProber, type SetupCodes } from "@tollgate/admin";
import type { Database } from "@tollgate/db";
import type { SecretBox, UpstreamAddressPolicy } from "@tollgate/shared";
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError, z } from "zod";
import type { LoginRateLimiter } from "./auth/login-rate-limiter";
import { SESSION_COOKIE, type SessionUser, readCookie, resolveSession, sessionCookie } from "./auth/sessions";

export type ConsoleLog = (level: "debug" | "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;

export type ChannelTestResult = Awaited<ReturnType<ChannelProber>>;

/** What every procedure can reach: the shared services plus this request's cookie, address and headers. */
export interface ConsoleContext {
  db: Database;
  secretBox: SecretBox;
  log: ConsoleLog;
  /** Null: no first-run setup page (see ConsoleDependencies). */
  setupCodes: SetupCodes | null;
  loginLimiter: LoginRateLimiter;
  sessionTtlMs: number;
  testChannel: ChannelProber;
  /** Which hosts channels and the spend-alert webhook may point at. */
  addressPolicy: UpstreamAddressPolicy;
  /** MCP_STDIO_ENABLED: Test may run a stdio MCP server's command. */
  mcpStdioEnabled: boolean;
  /** Base URL for the Quick start panel, without /v1. */
  publicBaseUrl: string;
  clientIp: string | null;
  /** The request came over https: cookies get `Secure`. */
  secure: boolean;
  /** The session cookie's secret, if the request carried one. */
  sessionSecret: string | null;
  /** Headers added to the response (Set-Cookie). */
  responseHeaders: Headers;
  /** Single sign-on, when OIDC_ISSUER is set: the button's name, and whether password sign-in is off. */
  oidc: { displayName: string; only: boolean; providerLogout: boolean } | null;
}

export function sessionSecretFrom(headers: Headers): string | null {
  return readCookie(headers.get("cookie"), SESSION_COOKIE);
}

const t = initTRPC.context<ConsoleContext>().create({
  // Never send server stack traces to the browser, whatever NODE_ENV says.
  isDev: false,
  transformer: superjson,
  errorFormatter({ shape, error }) {
    let fieldErrors: Record<string, string[]> | null = null;
    if (error.cause instanceof ZodError) {
      fieldErrors = z.flattenError(error.cause).fieldErrors as Record<string, string[]>;
    } else if (error.cause instanceof AdminError) {
      fieldErrors = error.cause.fieldErrors;
    }
    const message = error.cause instanceof ZodError ? "Some fields are not valid" : shape.message;
    // Internal errors may carry SQL or parameters: the client gets a generic message.
    const safeMessage = error.code === "INTERNAL_SERVER_ERROR" ? "Internal error" : message;
    const { stack: _stack, ...data } = shape.data;
    return { ...shape, message: safeMessage, data: { ...data, fieldErrors } };
  },
});

const trpcCodes: Record<AdminErrorCode, TRPCError["code"]> = {
  invalid_input: "BAD_REQUEST",
  not_found: "NOT_FOUND",
  forbidden: "FORBIDDEN",
};

/** An admin operation's refusal becomes its tRPC code, with the AdminError as cause (its field errors reach the form). */
const answerAdminErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AdminError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: trpcCodes[cause.code], message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(answerAdminErrors);

/** A signed-in, enabled user; ctx.user is who. */
export const authedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const resolved = ctx.sessionSecret ? await resolveSession(ctx.db, ctx.sessionSecret, ctx.sessionTtlMs) : null;
  if (!resolved) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue" });
  if (resolved.renewed && ctx.sessionSecret) {
    ctx.responseHeaders.append("set-cookie", sessionCookie(ctx.sessionSecret, { maxAgeMs: resolved.maxAgeMs, secure: ctx.secure }));
  }
  const user = resolved.user as SessionUser;
  // The audit log names the signed-in user and the address the request came from.
  const actor = { ...user, audit: { kind: "user" as const, id: user.id, name: user.name, address: ctx.clientIp } };
  return next({ ctx: { ...ctx, user: actor } });
});

export const adminProcedure = authedProcedure.use(({ ctx, next }) => {
  if (ctx.user.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "Only an administrator may do this" });
  return next();
});
