/**
 * The console's request-log queries on a big table: fills request_logs with BENCH_ROWS rows (10,000,000 by
 * default) spread evenly over the last BENCH_DAYS days (90) in monthly partitions, with the usage_hourly
 * rollup the write-behind would have made of them, then times every console query that reads them, through
 * the console's own tRPC procedures and CSV export: the logs page with each filter (first page and a
 * later one), a user's own logs, the CSV exports, the dashboard over 24 hours to 90 days, the onboarding
 * check, and one retention run. Prints the median of BENCH_REPEAT (5) runs of each, and the slowest.
 * `DATABASE_URL=postgres://... bun bench/request-logs-10m.ts` (Postgres only; the fill takes minutes at 10M;
 * BENCH_KEEP=1 leaves the database in place and prints its URL).
 */
import { listRequestLogPartitions, maintainRequestLogs, resultRows } from "@tollgate/db";
import { sql } from "drizzle-orm";
import { startConsole } from "../test/console/console-fixture";

if (!process.env.DATABASE_URL) throw new Error("DATABASE_URL (Postgres) is required");
const totalRows = Number(process.env.BENCH_ROWS ?? 10_000_000);
const days = Number(process.env.BENCH_DAYS ?? 90);
const repeat = Number(process.env.BENCH_REPEAT ?? 5);
const ROWS_PER_INSERT = 500_000;
const USERS = 100;
const TOKENS = 300;
const MODELS = 20;
const CHANNELS = 8;
const DAY_MS = 86_400_000;

const harness = await startConsole();
const db = harness.database.handle.db;
const admin = await harness.signedInUser({ name: "bench-admin", role: "admin" });
const alice = await harness.signedInUser({ name: "bench-alice" });
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const end = new Date();
const start = new Date(end.getTime() - days * DAY_MS);

// Steady state: one partition per month, as the retention job keeps them (the migration's first partition,
// empty on a new database, gives way to monthly ones from the first month of the data).
await db.execute(sql`drop table request_logs_p_initial`);
const firstMonth = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1));
const monthsAhead = (end.getUTCFullYear() - firstMonth.getUTCFullYear()) * 12 + end.getUTCMonth() - firstMonth.getUTCMonth() + 2;
await maintainRequestLogs(db, { retentionDays: 0, now: firstMonth, monthsAhead });
console.log(`partitions: ${(await listRequestLogPartitions(db)).map((partition) => partition.name).join(", ")}`);

// Each token belongs to one user (user id 1 + token % USERS: alice's id is 2, so ~1% of the rows are hers)
// and calls 3 of the models; a model is served by one channel; ~7% errors (5% 500, 2% 429).
const filling = performance.now();
const stepMicros = Math.floor(((end.getTime() - start.getTime()) * 1000) / totalRows);
for (let first = 1; first <= totalRows; first += ROWS_PER_INSERT) {
  const last = Math.min(totalRows, first + ROWS_PER_INSERT - 1);
  await db.execute(sql`
    insert into request_logs (created_at, request_id, user_id, token_id, token_name, endpoint, model, upstream_model, channel_id,
      channels_tried, prompt_tokens, completion_tokens, cached_tokens, cost, status, error_code, latency_ms, first_token_ms, client_ip, stream)
    select ${start.toISOString()}::timestamptz + (g * ${stepMicros}::bigint) * interval '1 microsecond',
      'req_' || g, 1 + token % ${USERS}, token, 'token-' || token, 'chat.completions', 'model-' || model, 'model-' || model || '-2025',
      1 + model % ${CHANNELS}, array[1 + model % ${CHANNELS}]::bigint[], 200 + g % 3000, 20 + g % 500, (g % 4) * 100, 50 + g % 5000,
      case when g % 20 = 0 then 500 when g % 50 = 1 then 429 else 200 end,
      case when g % 20 = 0 then 'upstream_error' when g % 50 = 1 then 'rate_limited' end,
      100 + g % 4000, 50 + g % 900, '10.0.' || (g % 250) || '.' || (g % 200), g % 2 = 0
    from (select g, 1 + (g * 7919) % ${TOKENS} as token, ((g * 7919) % ${TOKENS} + g % 3) % ${MODELS} as model
          from generate_series(${first}::bigint, ${last}::bigint) g) rows`);
  console.log(`  ${last.toLocaleString("en")} rows (${seconds(filling)})`);
}
await db.execute(sql`
  insert into usage_hourly (hour, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cost, latency_ms_sum, latency_count)
  select date_trunc('hour', created_at), user_id, token_id, model, channel_id, count(*), count(*) filter (where status >= 400),
    sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cost), sum(latency_ms), count(*)
  from request_logs group by 1, 2, 3, 4, 5`);
await db.execute(sql`vacuum analyze request_logs`);
await db.execute(sql`vacuum analyze usage_hourly`);
const [sizes] = resultRows(
  await db.execute(sql`select (select count(*) from usage_hourly)::int as rollup_rows,
    pg_size_pretty(pg_total_relation_size('request_logs_default') + (select sum(pg_total_relation_size(inhrelid)) from pg_inherits where inhparent = 'request_logs'::regclass)::bigint) as size`),
);
console.log(`filled ${totalRows.toLocaleString("en")} rows over ${days} days in ${seconds(filling)}; request_logs with indexes: ${sizes?.size}; usage_hourly rows: ${sizes?.rollup_rows}`);

const results: { name: string; median: number; max: number; rows: number }[] = [];
async function time(name: string, run: () => Promise<number>): Promise<void> {
  const timings: number[] = [];
  let rows = 0;
  for (let attempt = 0; attempt < repeat; attempt++) {
    const began = performance.now();
    rows = await run();
    timings.push(performance.now() - began);
  }
  timings.sort((a, b) => a - b);
  const result = { name, median: timings[Math.floor(timings.length / 2)]!, max: timings.at(-1)!, rows };
  results.push(result);
  console.log(`${name.padEnd(64)} ${result.median.toFixed(1).padStart(8)} ms  (max ${result.max.toFixed(1)}, ${rows} rows)`);
}

const logPage = (caller: typeof admin.caller, filters: Parameters<typeof admin.caller.logs.list>[0]) => async () =>
  (await caller.logs.list(filters)).items.length;
const laterPage = (caller: typeof admin.caller, filters: Parameters<typeof admin.caller.logs.list>[0]) => {
  let cursor: string | null = null;
  return async () => {
    cursor ??= (await caller.logs.list(filters)).nextCursor;
    return (await caller.logs.list({ ...filters, cursor })).items.length;
  };
};
const daysAgo = (count: number) => new Date(end.getTime() - count * DAY_MS);
const last24h = { from: daysAgo(1), to: end };

console.log(`\nconsole queries (median of ${repeat}):`);
await time("logs page, admin, no filter", logPage(admin.caller, {}));
await time("logs page, admin, next page", laterPage(admin.caller, {}));
await time("logs page, admin, last 24 h", logPage(admin.caller, last24h));
await time("logs page, admin, 30 days ago (range of one day)", logPage(admin.caller, { from: daysAgo(31), to: daysAgo(30) }));
await time("logs page, admin, one user", logPage(admin.caller, { userId: 50 }));
await time("logs page, admin, one token", logPage(admin.caller, { tokenId: 123 }));
await time("logs page, admin, one model", logPage(admin.caller, { model: "model-7" }));
await time("logs page, admin, one channel", logPage(admin.caller, { channelId: 3 }));
await time("logs page, admin, errors", logPage(admin.caller, { status: "error" }));
await time("logs page, admin, status 429", logPage(admin.caller, { status: 429 }));
await time("logs page, admin, successes", logPage(admin.caller, { status: "success" }));
await time("logs page, admin, one model, errors, last 24 h", logPage(admin.caller, { model: "model-7", status: "error", ...last24h }));
await time("logs page, admin, unknown model (no row matches)", logPage(admin.caller, { model: "no-such-model" }));
await time("logs page, user's own", logPage(alice.caller, {}));
await time("logs page, user's own, next page", laterPage(alice.caller, {}));
await time("logs page, user's own, one model", logPage(alice.caller, { model: "model-2" }));
await time("logs page, user's own, errors", logPage(alice.caller, { status: "error" }));

const download = async (path: string, cookie: string) => {
  const response = (await harness.console.handle(new Request(`http://localhost${path}`, { headers: { cookie } }))) as Response;
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  return text.split("\r\n").length - 2;
};
const range = (from: Date, to: Date) => `from=${from.toISOString()}&to=${to.toISOString()}`;
await time("CSV export of logs, admin, one hour (whole download)", () => download(`/export/logs.csv?${range(daysAgo(45), new Date(daysAgo(45).getTime() + 3_600_000))}`, admin.cookie));
await time("CSV export of logs, admin, one model, one hour", () => download(`/export/logs.csv?${range(daysAgo(45), new Date(daysAgo(45).getTime() + 3_600_000))}&model=model-7`, admin.cookie));
await time("CSV export of logs, user's own, one day", () => download(`/export/logs.csv?${range(daysAgo(10), daysAgo(9))}`, alice.cookie));
await time("CSV export of usage, admin, one day", () => download(`/export/usage.csv?${range(daysAgo(10), daysAgo(9))}`, admin.cookie));

const dashboard = (caller: typeof admin.caller, spanDays: number, bucket: "hour" | "day") => async () =>
  (await caller.dashboard.summary({ from: daysAgo(spanDays), to: end, bucket })).series.length;
await time("dashboard, admin, 24 h by hour", dashboard(admin.caller, 1, "hour"));
await time("dashboard, admin, 7 days by day", dashboard(admin.caller, 7, "day"));
await time("dashboard, admin, 30 days by day", dashboard(admin.caller, 30, "day"));
await time("dashboard, admin, 90 days by day", dashboard(admin.caller, 90, "day"));
await time("dashboard, user's own, 30 days by day", dashboard(alice.caller, 30, "day"));
await time("onboarding status, admin", async () => (await admin.caller.quickStart.onboarding()).steps.length);
await time("onboarding status, user", async () => (await alice.caller.quickStart.onboarding()).steps.length);

// One run of the hourly job as it is configured (100 batches of 2,000 rows at most), with a retention that
// leaves a whole month to drop and a month to thin.
const retentionDays = Math.max(1, days - 31);
const purging = performance.now();
const purge = await maintainRequestLogs(db, { retentionDays });
const purgeMs = performance.now() - purging;
console.log(
  `\nretention of ${retentionDays} days, one run: ${(purgeMs / 1000).toFixed(1)} s; dropped ${purge.dropped.join(", ") || "none"}, deleted ${purge.deletedRows.toLocaleString("en")} rows in batches of 2,000 (${((purgeMs * 2000) / Math.max(1, purge.deletedRows)).toFixed(0)} ms per batch, drop included)`,
);
const slow = results.filter((result) => result.median >= 200);
console.log(slow.length === 0 ? "every console query under 200 ms (median)" : `over 200 ms (median): ${slow.map((result) => result.name).join("; ")}`);
if (process.env.BENCH_KEEP) console.log(`database kept for a look: ${harness.database.url}`);
else await harness.close();
process.exit(0);
