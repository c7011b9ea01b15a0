import { type Database, tokens, usageHourly } from "@tollgate/db";
import { and, asc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import { z } from "zod";
import { type Actor, isAdministrator, isTeamKey } from "../actor";
import { AdminError } from "../admin-error";
import { recordIdSchema } from "../values/value-schemas";

const MAX_RANGE_DAYS = 366;

/** A range of whole UTC days [from, to), optionally one user's or one token's usage. */
export const usageReportSchema = z
  .object({
    from: z.coerce.date({ error: "Must be a date (ISO 8601)" }),
    to: z.coerce.date({ error: "Must be a date (ISO 8601)" }),
    userId: z.coerce.number().pipe(recordIdSchema).optional(),
    tokenId: z.coerce.number().pipe(recordIdSchema).optional(),
  })
  .refine((range) => range.to > range.from && range.to.getTime() - range.from.getTime() <= MAX_RANGE_DAYS * 86_400_000, {
    path: ["to"],
    message: `Must be after from, at most ${MAX_RANGE_DAYS} days later`,
  });

export type UsageReportInput = z.output<typeof usageReportSchema>;

/**
 * Requests, tokens and spend (micro-USD) per UTC day and model, from the hourly rollup (never the request
 * log). A user sees only their own usage.
 */
export async function usageReport(db: Database, actor: Actor, input: UsageReportInput) {
  // A team-limited API key sees its team's tokens' usage (of any member, `userId` narrowing it).
  const team = isTeamKey(actor) ? actor.teamId : null;
  if (!isAdministrator(actor) && team === null && input.userId !== undefined && input.userId !== actor.id) throw new AdminError("forbidden", "You can only see your own usage");
  const owner = isAdministrator(actor) || team !== null ? input.userId : actor.id;
  const day = sql<string>`to_char(date_trunc('day', ${usageHourly.hour} at time zone 'UTC'), 'YYYY-MM-DD')`;
  return db
    .select({
      day,
      model: usageHourly.model,
      requests: sql<number>`sum(${usageHourly.requests})::bigint`.mapWith(Number),
      errors: sql<number>`sum(${usageHourly.errors})::bigint`.mapWith(Number),
      promptTokens: sql<number>`sum(${usageHourly.promptTokens})::bigint`.mapWith(Number),
      completionTokens: sql<number>`sum(${usageHourly.completionTokens})::bigint`.mapWith(Number),
      cost: sql<number>`sum(${usageHourly.cost})::bigint`.mapWith(Number),
    })
    .from(usageHourly)
    .where(
      and(
        gte(usageHourly.hour, input.from),
        lt(usageHourly.hour, input.to),
        owner === undefined || owner === null ? undefined : eq(usageHourly.userId, owner),
        input.tokenId === undefined ? undefined : eq(usageHourly.tokenId, input.tokenId),
        team === null ? undefined : inArray(usageHourly.tokenId, db.select({ id: tokens.id }).from(tokens).where(eq(tokens.teamId, team))),
      ),
    )
    .groupBy(sql`1`, usageHourly.model)
    .orderBy(asc(sql`1`), asc(usageHourly.model));
}
