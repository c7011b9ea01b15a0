import { isAdministrator, recordIdSchema } from "@tollgate/admin";
import { channels, type Database, resultRows, tokens, usageDaily, usageHourly, users } from "@tollgate/db";
import { TRPCError } from "@trpc/server";
import { and, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { authedProcedure, router } from "../trpc";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const MAX_RANGE_MS = 366 * DAY_MS;

/** The sums the dashboard shows for a bucket, a breakdown row or the whole range. */
interface UsageTotals {
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  /** Prompt-cache reads and writes, and what the cache saved against the input price (micro-USD, may be negative). */
  cachedTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  cacheSavings: number;
}

const TOTAL_COLUMNS: [keyof UsageTotals, string][] = [
  ["requests", "requests"],
  ["errors", "errors"],
  ["promptTokens", "prompt_tokens"],
  ["completionTokens", "completion_tokens"],
  ["cost", "cost"],
  ["cachedTokens", "cached_tokens"],
  ["cacheWriteTokens", "cache_write_tokens"],
  ["cacheWrite1hTokens", "cache_write_1h_tokens"],
  ["cacheSavings", "cache_savings"],
];

/** The grouping sets of the one pass over the rollup: what the `kind` column of each result row names. */
const GROUPS = ["bucket", "model", "token", "user", "channel", "total"] as const;
type Group = (typeof GROUPS)[number];

interface GroupedRow extends UsageTotals {
  kind: Group;
  bucket: number | null;
  model: string | null;
  tokenId: number | null;
  userId: number | null;
  channelId: number | null;
}

/**
 * The rollup rows of [from, to) (one user's, or everyone's), each with the start of its bucket (epoch ms,
 * UTC): per hour from usage_hourly; per day from usage_daily for the whole days of the range and from
 * usage_hourly for the hours of the day the range ends in (the daily rollup sums about 24 times fewer rows).
 */
export function rollupRows(range: { from: Date; to: Date; owner: number | undefined; bucket: "hour" | "day" }): SQL {
  const columns = sql.raw(TOTAL_COLUMNS.map(([, column]) => column).join(", "));
  const bucketOf = (time: SQL) => sql`(extract(epoch from date_trunc(${sql.raw(`'${range.bucket}'`)}, ${time} at time zone 'UTC')) * 1000)::bigint`;
  const hourly = (from: Date) => sql`
    select ${bucketOf(sql`hour`)} as bucket, model, token_id, user_id, channel_id, ${columns} from ${usageHourly}
    where ${and(gte(usageHourly.hour, from), lt(usageHourly.hour, range.to), range.owner === undefined ? undefined : eq(usageHourly.userId, range.owner))}`;
  if (range.bucket === "hour") return hourly(range.from);
  const lastDay = new Date(floorTo(range.to.getTime(), DAY_MS));
  return sql`
    select ${bucketOf(sql`day`)} as bucket, model, token_id, user_id, channel_id, ${columns} from ${usageDaily}
    where ${and(gte(usageDaily.day, range.from), lt(usageDaily.day, lastDay), range.owner === undefined ? undefined : eq(usageDaily.userId, range.owner))}
    union all ${hourly(new Date(Math.max(range.from.getTime(), lastDay.getTime())))}`;
}

/**
 * Every figure of the dashboard in one pass over the rollup rows of the range (GROUPING SETS: per bucket,
 * model, token, user and channel, and the total), rather than one scan per breakdown: the rows are read
 * once, from the primary keys' time ranges or, for one user, the (user_id, time) indexes.
 */
async function groupedUsage(db: Database, rows: SQL): Promise<GroupedRow[]> {
  const sums = sql.raw(TOTAL_COLUMNS.map(([, column]) => `coalesce(sum(${column}), 0)::bigint as ${column}`).join(", "));
  const result = await db.execute(sql`
    select case
        when grouping(bucket) = 0 then 'bucket' when grouping(model) = 0 then 'model' when grouping(token_id) = 0 then 'token'
        when grouping(user_id) = 0 then 'user' when grouping(channel_id) = 0 then 'channel' else 'total' end as kind,
      bucket, model, token_id, user_id, channel_id, ${sums}
    from (${rows}) usage
    group by grouping sets ((bucket), (model), (token_id), (user_id), (channel_id), ())`);
  const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return resultRows(result).map((row) => {
    const grouped = {
      kind: row.kind as Group,
      bucket: number(row.bucket),
      model: row.model === null || row.model === undefined ? null : String(row.model),
      tokenId: number(row.token_id),
      userId: number(row.user_id),
      channelId: number(row.channel_id),
    } as GroupedRow;
    for (const [field, column] of TOTAL_COLUMNS) grouped[field] = Number(row[column] ?? 0);
    return grouped;
  });
}

function totalsOf(row: UsageTotals | undefined): UsageTotals {
  const totals = {} as UsageTotals;
  for (const [field] of TOTAL_COLUMNS) totals[field] = row?.[field] ?? 0;
  return totals;
}

/** The 50 biggest spenders of one breakdown, as the page lists them. */
function topByCost(rows: GroupedRow[], kind: Group): GroupedRow[] {
  return rows
    .filter((row) => row.kind === kind)
    .sort((a, b) => b.cost - a.cost || b.requests - a.requests)
    .slice(0, 50);
}

/** Names of the ids a breakdown shows (null: deleted since), read by primary key. */
async function namesOf(db: Database, table: typeof tokens | typeof users | typeof channels, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.select({ id: table.id, name: table.name }).from(table).where(inArray(table.id, ids));
  return new Map(rows.map((row) => [row.id, row.name]));
}

function floorTo(time: number, bucketMs: number): number {
  return time - (time % bucketMs);
}

export const dashboardRouter = router({
  /**
   * Requests, tokens and spend for [from, to), from the hourly and daily rollups (never request_logs): a series per
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
      const grouped = await groupedUsage(ctx.db, rollupRows({ from, to, owner, bucket: input.bucket }));
      const byBucket = new Map(grouped.filter((row) => row.kind === "bucket").map((row) => [row.bucket, row]));
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

      const topModels = topByCost(grouped, "model");
      const topTokens = topByCost(grouped, "token");
      // Per user and per channel are the administrators' views (a user's own usage has one user).
      const topUsers = admin ? topByCost(grouped, "user") : [];
      const topChannels = admin ? topByCost(grouped, "channel") : [];
      const [tokenNames, userNames, channelNames] = await Promise.all([
        namesOf(ctx.db, tokens, topTokens.map((row) => row.tokenId!)),
        namesOf(ctx.db, users, topUsers.map((row) => row.userId!)),
        namesOf(ctx.db, channels, topChannels.map((row) => row.channelId!)),
      ]);
      const byModel = topModels.map((row) => ({ model: row.model!, ...totalsOf(row) }));
      const byToken = topTokens.map((row) => ({ tokenId: row.tokenId!, tokenName: tokenNames.get(row.tokenId!) ?? null, ...totalsOf(row) }));
      const byUser = topUsers.map((row) => ({ userId: row.userId!, userName: userNames.get(row.userId!) ?? null, ...totalsOf(row) }));
      const byChannel = topChannels.map((row) => ({ channelId: row.channelId!, channelName: channelNames.get(row.channelId!) ?? null, ...totalsOf(row) }));
      const overall = totalsOf(grouped.find((row) => row.kind === "total"));
      return { from, to, bucket: input.bucket, totals: overall, series, byModel, byToken, byUser, byChannel };
    }),
});
