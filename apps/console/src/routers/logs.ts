import { isAdministrator, recordIdSchema } from "@tollgate/admin";
import { channels, requestLogs, users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { authedProcedure, router } from "../trpc";

/** created_at with its microseconds, so that a page boundary never skips or repeats a row. */
const createdAtText = sql<string>`to_char(${requestLogs.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const CURSOR_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|(\d{1,18})$/;

const listInput = z.object({
  /** Opaque: the nextCursor of the previous page. */
  cursor: z.string().regex(CURSOR_PATTERN, "Invalid cursor").nullish(),
  limit: z.number().int().min(1).max(200).default(50),
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

export const logsRouter = router({
  /** Request log, newest first, keyset-paginated on (created_at, id). Users see only their own calls. */
  list: authedProcedure.input(listInput).query(async ({ ctx, input }) => {
    const admin = isAdministrator(ctx.user);
    if (!admin && input.userId !== undefined && input.userId !== ctx.user.id) {
      throw new TRPCError({ code: "FORBIDDEN", message: "You can only read your own logs" });
    }
    if (!admin && input.channelId !== undefined) {
      throw new TRPCError({ code: "FORBIDDEN", message: "Only an administrator can filter by channel" });
    }
    const conditions: (SQL | undefined)[] = [
      admin ? (input.userId === undefined ? undefined : eq(requestLogs.userId, input.userId)) : eq(requestLogs.userId, ctx.user.id),
      input.from ? gte(requestLogs.createdAt, input.from) : undefined,
      input.to ? lt(requestLogs.createdAt, input.to) : undefined,
      input.tokenId === undefined ? undefined : eq(requestLogs.tokenId, input.tokenId),
      input.model === undefined ? undefined : eq(requestLogs.model, input.model),
      input.channelId === undefined ? undefined : eq(requestLogs.channelId, input.channelId),
      input.status === "success" ? lt(requestLogs.status, 400) : undefined,
      input.status === "error" ? gte(requestLogs.status, 400) : undefined,
      typeof input.status === "number" ? eq(requestLogs.status, input.status) : undefined,
    ];
    const cursor = input.cursor ? CURSOR_PATTERN.exec(input.cursor) : null;
    if (cursor) {
      conditions.push(sql`(${requestLogs.createdAt}, ${requestLogs.id}) < (${cursor[1]}::timestamptz, ${cursor[2]}::bigint)`);
    }
    const rows = await ctx.db
      .select({
        id: requestLogs.id,
        createdAt: requestLogs.createdAt,
        cursorAt: createdAtText,
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
        usageEstimated: requestLogs.usageEstimated,
        cost: requestLogs.cost,
        status: requestLogs.status,
        errorCode: requestLogs.errorCode,
        latencyMs: requestLogs.latencyMs,
        firstTokenMs: requestLogs.firstTokenMs,
        clientIp: requestLogs.clientIp,
        stream: requestLogs.stream,
      })
      .from(requestLogs)
      .leftJoin(users, eq(users.id, requestLogs.userId))
      .leftJoin(channels, eq(channels.id, requestLogs.channelId))
      .where(and(...conditions))
      .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
      .limit(input.limit + 1);
    const page = rows.slice(0, input.limit);
    const last = page[page.length - 1];
    const items = page.map(({ cursorAt: _cursor, ...row }) =>
      // Channels are the operator's business: users see which model answered, not which upstream.
      admin ? row : { ...row, channelId: null, channelName: null, upstreamModel: null },
    );
    return { items, nextCursor: rows.length > input.limit && last ? `${last.cursorAt}|${last.id}` : null };
  }),
});
