import { isAdministrator, recordIdSchema } from "@tollgate/admin";
import { channels, type Database, requestLogs, users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { and, asc, desc, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { SessionUser } from "../auth/sessions";

/**
 * The columns of a request-log row as the logs page and its CSV export read it (joined with users and
 * channels for their names), with `cursorAt`: created_at with its microseconds, so that a page boundary
 * never skips or repeats a row.
 */
export const logRowColumns = {
  id: requestLogs.id,
  createdAt: requestLogs.createdAt,
  cursorAt: sql<string>`to_char(${requestLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  requestId: requestLogs.requestId,
  endpoint: requestLogs.endpoint,
  userId: requestLogs.userId,
  userName: users.name,
  tokenId: requestLogs.tokenId,
  tokenName: requestLogs.tokenName,
  model: requestLogs.model,
  upstreamModel: requestLogs.upstreamModel,
  channelId: requestLogs.channelId,
  channelName: channels.name,
  channelsTried: requestLogs.channelsTried,
  promptTokens: requestLogs.promptTokens,
  completionTokens: requestLogs.completionTokens,
  cachedTokens: requestLogs.cachedTokens,
  cacheWriteTokens: requestLogs.cacheWriteTokens,
  cacheWrite1hTokens: requestLogs.cacheWrite1hTokens,
  cacheSavings: requestLogs.cacheSavings,
  usageEstimated: requestLogs.usageEstimated,
  billedUnit: requestLogs.billedUnit,
  billedQuantity: requestLogs.billedQuantity,
  cost: requestLogs.cost,
  status: requestLogs.status,
  errorCode: requestLogs.errorCode,
  latencyMs: requestLogs.latencyMs,
  firstTokenMs: requestLogs.firstTokenMs,
  clientIp: requestLogs.clientIp,
  stream: requestLogs.stream,
  /** hit, miss, bypass or refresh; null when the response cache was not involved. */
  responseCache: requestLogs.responseCache,
};

/** The filters of the request log, shared by the logs page's list and its CSV export. */
export const logFiltersSchema = z.object({
  from: z.date().optional(),
  to: z.date().optional(),
  tokenId: recordIdSchema.optional(),
  model: z.string().trim().min(1).max(200).optional(),
  /** "success" (< 400), "error" (>= 400), or one HTTP status. */
  status: z.union([z.enum(["success", "error"]), z.number().int().min(100).max(599)]).optional(),
  /** Admins only. */
  userId: recordIdSchema.optional(),
  /** Admins only. */
  channelId: z.number().int().min(0).optional(),
});

export type LogFilters = z.output<typeof logFiltersSchema>;

/**
 * The WHERE conditions of those filters for this user: an administrator sees every user's calls, anyone else
 * only their own (naming another user, or a channel, is refused with FORBIDDEN).
 */
export function logConditions(user: SessionUser, filters: LogFilters): (SQL | undefined)[] {
  const admin = isAdministrator(user);
  if (!admin && filters.userId !== undefined && filters.userId !== user.id) {
    throw new TRPCError({ code: "FORBIDDEN", message: "You can only read your own logs" });
  }
  if (!admin && filters.channelId !== undefined) {
    throw new TRPCError({ code: "FORBIDDEN", message: "Only an administrator can filter by channel" });
  }
  return [
    admin ? (filters.userId === undefined ? undefined : eq(requestLogs.userId, filters.userId)) : eq(requestLogs.userId, user.id),
    filters.from ? gte(requestLogs.createdAt, filters.from) : undefined,
    filters.to ? lt(requestLogs.createdAt, filters.to) : undefined,
    filters.tokenId === undefined ? undefined : eq(requestLogs.tokenId, filters.tokenId),
    filters.model === undefined ? undefined : eq(requestLogs.model, filters.model),
    filters.channelId === undefined ? undefined : eq(requestLogs.channelId, filters.channelId),
    filters.status === "success" ? lt(requestLogs.status, 400) : undefined,
    filters.status === "error" ? gte(requestLogs.status, 400) : undefined,
    typeof filters.status === "number" ? eq(requestLogs.status, filters.status) : undefined,
  ];
}

/** A page boundary of the request log: the (created_at, id) of the last row read, created_at to the microsecond. */
export interface LogCursor {
  at: string;
  id: number;
}

/**
 * One page of request-log rows matching `conditions`, newest or oldest first, after `cursor`: the one query
 * of the logs page and of its CSV export. Every filter of the page has an index that ends in (created_at
 * desc, id desc) (see the request_logs schema), so a page reads its rows in order from one index, and a
 * time range reads only the partitions of its months; log-query-plans.test.ts checks the plans.
 */
export function logRowsQuery(db: Database, conditions: (SQL | undefined)[], order: "newest" | "oldest", cursor: LogCursor | null, limit: number) {
  const newest = order === "newest";
  const keyset = cursor
    ? newest
      ? sql`(${requestLogs.createdAt}, ${requestLogs.id}) < (${cursor.at}::timestamptz, ${cursor.id}::bigint)`
      : sql`(${requestLogs.createdAt}, ${requestLogs.id}) > (${cursor.at}::timestamptz, ${cursor.id}::bigint)`
    : undefined;
  const direction = newest ? desc : asc;
  return db
    .select(logRowColumns)
    .from(requestLogs)
    .leftJoin(users, eq(users.id, requestLogs.userId))
    .leftJoin(channels, eq(channels.id, requestLogs.channelId))
    .where(and(...conditions, keyset))
    .orderBy(direction(requestLogs.createdAt), direction(requestLogs.id))
    .limit(limit);
}
