import { auditFiltersSchema, isAdministrator } from "@tollgate/admin";
import { channels, type Database, tokens, usageHourly, users } from "@tollgate/db";
import { microsToUsd } from "@tollgate/shared";
import { TRPCError } from "@trpc/server";
import { and, asc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { resolveSession, type SessionUser, sessionCookie } from "../auth/sessions";
import type { ConsoleLog } from "../trpc";
import { type CsvCell, csvLine } from "./csv-cells";
import { type LogCursor, logConditions, logFiltersSchema, logRowsQuery } from "./log-filters";
import { AUDIT_HEADER, auditPages } from "./audit-export";

/** Rows read per query while the download streams: the whole range is never held in memory. */
const ROWS_PER_PAGE = 1000;

const LOG_HEADER = [
  "time", "request_id", "endpoint", "user", "token", "model", "upstream_model", "channel", "status", "error_code",
  "prompt_tokens", "cached_tokens", "completion_tokens", "usage_estimated", "billed_unit", "billed_quantity", "cost_usd",
  "latency_ms", "first_token_ms", "stream", "client_ip", "cache_write_tokens", "cache_write_1h_tokens", "cache_savings_usd",
];

const USAGE_HEADER = [
  "hour", "user", "token", "model", "channel", "requests", "errors", "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd",
  "latency_ms_sum", "latency_count", "cache_write_tokens", "cache_write_1h_tokens", "cache_savings_usd",
];

const number = z.coerce.number().int();
const instant = z.iso.datetime({ offset: true }).transform((text) => new Date(text));

/** The range every export needs, from the query string: ISO 8601 instants, `from` before `to`. */
const rangeSchema = z
  .object({ from: instant, to: instant })
  .refine((range) => range.from.getTime() < range.to.getTime(), { message: "Must end after it starts", path: ["to"] });

const logQuerySchema = rangeSchema.and(
  z.object({
    tokenId: number.optional(),
    model: z.string().optional(),
    status: z.union([z.enum(["success", "error"]), number]).optional(),
    userId: number.optional(),
    channelId: number.optional(),
  }),
);

const usageQuerySchema = rangeSchema.and(z.object({ userId: number.optional() }));

function fileDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function csvResponse(fileName: string, header: string[], pages: () => Promise<CsvCell[][] | null>, log: ConsoleLog): Response {
  const encoder = new TextEncoder();
  let headerSent = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(csvLine(header)));
        return;
      }
      try {
        const rows = await pages();
        if (rows === null) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(rows.map(csvLine).join("")));
      } catch (error) {
        log("error", "CSV export failed while streaming", { file: fileName, error: error instanceof Error ? error.message.split("\n")[0] : String(error) });
        controller.error(error);
      }
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${fileName}"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

function problem(status: number, message: string): Response {
  return Response.json({ error: { message } }, { status, headers: { "cache-control": "no-store" } });
}

function queryObject(url: URL): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (value !== "") entries[name] = value;
  return entries;
}

/** Request-log rows of the range, oldest first, page by page on (created_at, id); users get their own. */
function logPages(db: Database, user: SessionUser, conditions: (SQL | undefined)[]): () => Promise<CsvCell[][] | null> {
  const admin = isAdministrator(user);
  let cursor: LogCursor | null = null;
  let done = false;
  return async () => {
    if (done) return null;
    const rows = await logRowsQuery(db, conditions, "oldest", cursor, ROWS_PER_PAGE);
    const last = rows.at(-1);
    if (!last) return null;
    if (rows.length < ROWS_PER_PAGE) done = true;
    cursor = { at: last.cursorAt, id: last.id };
    return rows.map((row) => [
      row.createdAt,
      row.requestId,
      row.endpoint,
      row.userName ?? row.userId,
      row.tokenName,
      row.model,
      // Channels are the operator's business, as in the logs page.
      admin ? row.upstreamModel : null,
      admin ? (row.channelName ?? row.channelId) : null,
      row.status,
      row.errorCode,
      row.promptTokens,
      row.cachedTokens,
      row.completionTokens,
      row.usageEstimated,
      row.billedUnit,
      row.billedQuantity,
      { decimal: microsToUsd(row.cost) },
      row.latencyMs,
      row.firstTokenMs,
      row.stream,
      row.clientIp,
      row.cacheWriteTokens,
      row.cacheWrite1hTokens,
      { decimal: microsToUsd(row.cacheSavings) },
    ]);
  };
}

/** usage_hourly rows of the range, page by page on its primary key; users get their own, without channels. */
function usagePages(db: Database, admin: boolean, where: SQL | undefined): () => Promise<CsvCell[][] | null> {
  let cursor: { hour: Date; userId: number; tokenId: number; model: string; channelId: number } | null = null;
  let done = false;
  return async () => {
    if (done) return null;
    const keyset = cursor
      ? sql`(${usageHourly.hour}, ${usageHourly.userId}, ${usageHourly.tokenId}, ${usageHourly.model}, ${usageHourly.channelId}) > (${cursor.hour.toISOString()}::timestamptz, ${cursor.userId}::bigint, ${cursor.tokenId}::bigint, ${cursor.model}, ${cursor.channelId}::bigint)`
      : undefined;
    const rows = await db
      .select({
        hour: usageHourly.hour,
        userId: usageHourly.userId,
        userName: users.name,
        tokenId: usageHourly.tokenId,
        tokenName: tokens.name,
        model: usageHourly.model,
        channelId: usageHourly.channelId,
        channelName: channels.name,
        requests: usageHourly.requests,
        errors: usageHourly.errors,
        promptTokens: usageHourly.promptTokens,
        completionTokens: usageHourly.completionTokens,
        cachedTokens: usageHourly.cachedTokens,
        cacheWriteTokens: usageHourly.cacheWriteTokens,
        cacheWrite1hTokens: usageHourly.cacheWrite1hTokens,
        cost: usageHourly.cost,
        cacheSavings: usageHourly.cacheSavings,
        latencyMsSum: usageHourly.latencyMsSum,
        latencyCount: usageHourly.latencyCount,
      })
      .from(usageHourly)
      .leftJoin(users, eq(users.id, usageHourly.userId))
      .leftJoin(tokens, eq(tokens.id, usageHourly.tokenId))
      .leftJoin(channels, eq(channels.id, usageHourly.channelId))
      .where(and(where, keyset))
      .orderBy(asc(usageHourly.hour), asc(usageHourly.userId), asc(usageHourly.tokenId), asc(usageHourly.model), asc(usageHourly.channelId))
      .limit(ROWS_PER_PAGE);
    const last = rows.at(-1);
    if (!last) return null;
    if (rows.length < ROWS_PER_PAGE) done = true;
    cursor = { hour: last.hour, userId: last.userId, tokenId: last.tokenId, model: last.model, channelId: last.channelId };
    return rows.map((row) => [
      row.hour,
      row.userName ?? row.userId,
      row.tokenName ?? row.tokenId,
      row.model,
      admin ? (row.channelId === 0 ? "" : (row.channelName ?? row.channelId)) : null,
      row.requests,
      row.errors,
      row.promptTokens,
      row.completionTokens,
      row.cachedTokens,
      { decimal: microsToUsd(row.cost) },
      row.latencyMsSum,
      row.latencyCount,
      row.cacheWriteTokens,
      row.cacheWrite1hTokens,
      { decimal: microsToUsd(row.cacheSavings) },
    ]);
  };
}

export interface ExportDependencies {
  db: Database;
  sessionTtlMs: number;
  log: ConsoleLog;
  secureFor: (url: URL, headers: Headers) => boolean;
  sessionSecret: (headers: Headers) => string | null;
}

/**
 * GET /export/logs.csv and /export/usage.csv: a whole range of the request log or of the hourly rollup as a
 * CSV download, streamed page by page from the database. Signed in by the session cookie, as tRPC is; an
 * administrator exports everyone's rows (or one user's), a user only their own. Query: from and to (ISO
 * 8601, required), and for the logs the logs page's filters (tokenId, model, status, userId, channelId).
 * Null for any other path.
 */
export function createExportHandler(deps: ExportDependencies) {
  return async (request: Request, url: URL): Promise<Response | null> => {
    const kind = url.pathname === "/export/logs.csv" ? "logs" : url.pathname === "/export/usage.csv" ? "usage" : url.pathname === "/export/audit.csv" ? "audit" : null;
    if (!kind) return null;
    if (request.method !== "GET") return problem(405, "Use GET");
    const secret = deps.sessionSecret(request.headers);
    const resolved = secret ? await resolveSession(deps.db, secret, deps.sessionTtlMs) : null;
    if (!resolved || !secret) return problem(401, "Sign in to continue");
    const user = resolved.user;
    const admin = isAdministrator(user);
    let response: Response;
    if (kind === "audit") {
      // The audit log is the administrators' (packages/admin listAudit's rule); the filters are its page's.
      if (!admin) return problem(403, "Only an administrator can see the audit log");
      const parsed = auditFiltersSchema.safeParse(queryObject(url));
      if (!parsed.success) return problem(400, `Invalid export query: ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
      response = csvResponse(`tollgate-audit-${fileDate(new Date())}.csv`, AUDIT_HEADER, auditPages(deps.db, parsed.data), deps.log);
    } else if (kind === "logs") {
      const parsed = logQuerySchema.safeParse(queryObject(url));
      if (!parsed.success) return problem(400, `Invalid export query: ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
      const filters = logFiltersSchema.safeParse(parsed.data);
      if (!filters.success) return problem(400, "Invalid export query");
      let conditions: (SQL | undefined)[];
      try {
        conditions = logConditions(user, filters.data);
      } catch (error) {
        if (error instanceof TRPCError && error.code === "FORBIDDEN") return problem(403, error.message);
        throw error;
      }
      const name = `tollgate-logs-${fileDate(parsed.data.from)}-to-${fileDate(parsed.data.to)}.csv`;
      response = csvResponse(name, LOG_HEADER, logPages(deps.db, user, conditions), deps.log);
    } else {
      const parsed = usageQuerySchema.safeParse(queryObject(url));
      if (!parsed.success) return problem(400, `Invalid export query: ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
      const { from, to, userId } = parsed.data;
      if (!admin && userId !== undefined && userId !== user.id) return problem(403, "You can only export your own usage");
      const owner = admin ? userId : user.id;
      const where = and(gte(usageHourly.hour, from), lt(usageHourly.hour, to), owner === undefined ? undefined : eq(usageHourly.userId, owner));
      const name = `tollgate-usage-${fileDate(from)}-to-${fileDate(to)}.csv`;
      response = csvResponse(name, USAGE_HEADER, usagePages(deps.db, admin, where), deps.log);
    }
    if (resolved.renewed) response.headers.append("set-cookie", sessionCookie(secret, { maxAgeMs: resolved.maxAgeMs, secure: deps.secureFor(url, request.headers) }));
    return response;
  };
}
