import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { resultRows, usageDaily, usageHourly } from "@tollgate/db";
import { and, asc, eq, sql } from "drizzle-orm";
import { type ConsoleUnderTest, startConsole, type SignedInUser } from "./console-fixture";

// A fresh PGlite takes seconds to migrate on a busy machine. A bound on hangs, not a tuned timing.
setDefaultTimeout(60_000);

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let harness: ConsoleUnderTest;
let admin: SignedInUser;
let alice: SignedInUser;
const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
const hoursAgo = (hours: number) => new Date(today.getTime() + 12 * HOUR_MS - hours * HOUR_MS);

beforeAll(async () => {
  harness = await startConsole();
  admin = await harness.signedInUser({ name: "root", role: "admin" });
  alice = await harness.signedInUser({ name: "alice" });
  const rows: (typeof usageHourly.$inferInsert)[] = [];
  // Hourly rows over 40 days (this morning's included), for alice and another user, two models.
  for (let hour = 0; hour < 40 * 24; hour += 5) {
    rows.push({ hour: hoursAgo(hour), userId: alice.id, tokenId: 1, model: "m1", channelId: 3, requests: 2, errors: hour % 2, cost: 100 + hour, promptTokens: 10, latencyMsSum: 40, latencyCount: 2 });
    rows.push({ hour: hoursAgo(hour), userId: admin.id, tokenId: 2, model: `m${hour % 3}`, channelId: 0, requests: 1, cost: 7, completionTokens: 3 });
  }
  await harness.database.handle.db.insert(usageHourly).values(rows);
});

afterAll(() => harness?.close());

async function dailyMatchesHourly(): Promise<void> {
  const db = harness.database.handle.db;
  const fromHourly = resultRows(
    await db.execute(sql`select (extract(epoch from date_trunc('day', hour at time zone 'UTC')) * 1000)::bigint as day, user_id, token_id, model, channel_id, sum(requests)::int as requests,
      sum(errors)::int as errors, sum(cost)::bigint as cost, sum(latency_count)::int as latency_count
      from usage_hourly group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`),
  ).map((row) => [Number(row.day), Number(row.user_id), Number(row.token_id), String(row.model), Number(row.channel_id), Number(row.requests), Number(row.errors), Number(row.cost), Number(row.latency_count)]);
  const daily = (await db.select().from(usageDaily).orderBy(asc(usageDaily.day), asc(usageDaily.userId), asc(usageDaily.tokenId), asc(usageDaily.model), asc(usageDaily.channelId)))
    .filter((row) => row.requests !== 0 || row.cost !== 0)
    .map((row) => [row.day.getTime(), row.userId, row.tokenId, row.model, row.channelId, row.requests, row.errors, row.cost, row.latencyCount]);
  expect(daily).toEqual(fromHourly);
}

describe("the daily rollup", () => {
  test("follows every insert, upsert and delete of the hourly rollup, per UTC day", async () => {
    await dailyMatchesHourly();
    const db = harness.database.handle.db;
    // The write-behind's upsert adds to an hourly row.
    await db
      .insert(usageHourly)
      .values({ hour: hoursAgo(0), userId: alice.id, tokenId: 1, model: "m1", channelId: 3, requests: 5, cost: 1000 })
      .onConflictDoUpdate({
        target: [usageHourly.hour, usageHourly.userId, usageHourly.tokenId, usageHourly.model, usageHourly.channelId],
        set: { requests: sql`${usageHourly.requests} + excluded.requests`, cost: sql`${usageHourly.cost} + excluded.cost` },
      });
    await db.delete(usageHourly).where(and(eq(usageHourly.userId, admin.id), eq(usageHourly.hour, hoursAgo(100))));
    await dailyMatchesHourly();
  });

  test("the dashboard's days, from the daily rollup and this day's hours, add up to the hourly rollup's figures", async () => {
    for (const caller of [admin.caller, alice.caller]) {
      const range = { from: new Date(today.getTime() - 35 * DAY_MS + 5 * HOUR_MS), to: new Date(today.getTime() + 9 * HOUR_MS) };
      const byDay = await caller.dashboard.summary({ ...range, bucket: "day" });
      // The same range by hour, from its first whole day: what the daily buckets cover.
      const byHour = await caller.dashboard.summary({ from: new Date(today.getTime() - 35 * DAY_MS), to: range.to, bucket: "hour" });
      expect(byDay.totals).toEqual(byHour.totals);
      expect(byDay.byModel).toEqual(byHour.byModel);
      expect(byDay.byToken).toEqual(byHour.byToken);
      expect(byDay.byUser).toEqual(byHour.byUser);
      expect(byDay.byChannel).toEqual(byHour.byChannel);
      expect(byDay.series).toHaveLength(36);
      const lastDay = byDay.series.at(-1)!;
      const todaysHours = byHour.series.filter((point) => point.time.getTime() >= today.getTime());
      expect(lastDay.requests).toBe(todaysHours.reduce((sum, point) => sum + point.requests, 0));
      expect(byDay.series.reduce((sum, point) => sum + point.cost, 0)).toBe(byDay.totals.cost);
    }
  });
});
