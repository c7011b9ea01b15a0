import { isAdministrator, recordIdSchema } from "@tollgate/admin";
import { channels, tokens, usageHourly, users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgSelect } from "drizzle-orm/pg-core";
import { z } from "zod";
import { authedProcedure, router } from "../trpc";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const MAX_RANGE_MS = 366 * DAY_MS;

const totals = {
  requests: sql<number>`coalesce(sum(${usageHourly.requests}), 0)::bigint`.mapWith(Number),
  errors: sql<number>`coalesce(sum(${usageHourly.errors}), 0)::bigint`.mapWith(Number),
  promptTokens: sql<number>`coalesce(sum(${usageHourly.promptTokens}), 0)::bigint`.mapWith(Number),
  completionTokens: sql<number>`coalesce(sum(${usageHourly.completionTokens}), 0)::bigint`.mapWith(Number),
  cost: sql<number>`coalesce(sum(${usageHourly.cost}), 0)::bigint`.mapWith(Number),
  /** Prompt-cache reads and writes, and what the cache saved against the input price (micro-USD, may be negative). */
  cachedTokens: sql<number>`coalesce(sum(${usageHourly.cachedTokens}), 0)::bigint`.mapWith(Number),
  cacheWriteTokens: sql<number>`coalesce(sum(${usageHourly.cacheWriteTokens}), 0)::bigint`.mapWith(Number),
  cacheWrite1hTokens: sql<number>`coalesce(sum(${usageHourly.cacheWrite1hTokens}), 0)::bigint`.mapWith(Number),
  cacheSavings: sql<number>`coalesce(sum(${usageHourly.cacheSavings}), 0)::bigint`.mapWith(Number),
};

function floorTo(time: number, bucketMs: number): number {
  return time - (time % bucketMs);
}

export const dashboardRouter = router({
  /**
   * Requests, tokens and spend for [from, to), from the hourly rollup (never request_logs): a series per
   * hour or per UTC day, and totals per model and per token. Users see only their own usage.
   */
  summary: authedProcedure
    .input(
      z.object({
        from: z.date(),
        to: z.date(),
        bucket: z.enum(["hour", "day"]).default("hour"),
        /** Admins only; omitted means everyone. */
        userId: recordIdSchema.optional(),
      }),
    )
    .query(async ({ ctx, input }) => {
      if (input.to.getTime() <= input.from.getTime() || input.to.getTime() - input.from.getTime() > MAX_RANGE_MS) {
        throw new TRPCError({ code: "BAD_REQUEST", message: "Choose a range of at most 366 days that ends after it starts" });
      }
      const admin = isAdministrator(ctx.user);
      if (!admin && input.userId !== undefined && input.userId !== ctx.user.id) {
        throw new TRPCError({ code: "FORBIDDEN", message: "You can only see your own usage" });
      }
      const bucketMs = input.bucket === "day" ? DAY_MS : HOUR_MS;
      // Whole buckets: the first one that the range touches through the last.
      const from = new Date(floorTo(input.from.getTime(), bucketMs));
      const to = input.to;
      const owner = admin ? (input.userId === undefined ? undefined : input.userId) : ctx.user.id;
      const where = and(
        gte(usageHourly.hour, from),
        lt(usageHourly.hour, to),
        owner === undefined ? undefined : eq(usageHourly.userId, owner),
      ) as SQL;

      // Epoch milliseconds of the bucket's start, in UTC whatever the server's time zone.
      const bucketStart = sql<number>`(extract(epoch from date_trunc(${sql.raw(`'${input.bucket}'`)}, ${usageHourly.hour} at time zone 'UTC')) * 1000)::bigint`.mapWith(Number);
      const seriesRows = await ctx.db
        .select({ bucket: bucketStart, ...totals })
        .from(usageHourly)
        .where(where)
        .groupBy(sql`1`)
        .orderBy(sql`1`);
      const byBucket = new Map(seriesRows.map((row) => [row.bucket, row]));
      const series = [];
      for (let time = from.getTime(); time < to.getTime(); time += bucketMs) {
        const row = byBucket.get(time);
        series.push({
          time: new Date(time),
          requests: row?.requests ?? 0,
          errors: row?.errors ?? 0,
          promptTokens: row?.promptTokens ?? 0,
          completionTokens: row?.completionTokens ?? 0,
          cost: row?.cost ?? 0,
        });
      }

      // The 50 biggest spenders of a breakdown (by model, token, user or channel) in the range.
      const topByCost = <Query extends PgSelect>(query: Query, ...groupBy: (PgColumn | SQL)[]) =>
        query.where(where).groupBy(...groupBy).orderBy(desc(totals.cost), desc(totals.requests)).limit(50);
      const byModel = await topByCost(ctx.db.select({ model: usageHourly.model, ...totals }).from(usageHourly).$dynamic(), usageHourly.model);
      const byToken = await topByCost(
        ctx.db.select({ tokenId: usageHourly.tokenId, tokenName: tokens.name, ...totals }).from(usageHourly).leftJoin(tokens, eq(tokens.id, usageHourly.tokenId)).$dynamic(),
        usageHourly.tokenId,
        tokens.name,
      );
      // Per user and per channel are the administrators' views (a user's own usage has one user).
      const byUser = admin
        ? await topByCost(
            ctx.db.select({ userId: usageHourly.userId, userName: users.name, ...totals }).from(usageHourly).leftJoin(users, eq(users.id, usageHourly.userId)).$dynamic(),
            usageHourly.userId,
            users.name,
          )
        : [];
      const byChannel = admin
        ? await topByCost(
            ctx.db
              .select({ channelId: usageHourly.channelId, channelName: channels.name, ...totals })
              .from(usageHourly)
              .leftJoin(channels, eq(channels.id, usageHourly.channelId))
              .$dynamic(),
            usageHourly.channelId,
            channels.name,
          )
        : [];
      const [overall] = await ctx.db.select(totals).from(usageHourly).where(where);
      return { from, to, bucket: input.bucket, totals: overall!, series, byModel, byToken, byUser, byChannel };
    }),
});
