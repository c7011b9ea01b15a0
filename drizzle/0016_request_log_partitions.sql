CREATE TABLE "usage_daily" (
	"day" timestamp with time zone NOT NULL,
	"user_id" bigint NOT NULL,
	"token_id" bigint NOT NULL,
	"model" text NOT NULL,
	"channel_id" bigint DEFAULT 0 NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"prompt_tokens" bigint DEFAULT 0 NOT NULL,
	"completion_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_tokens" bigint DEFAULT 0 NOT NULL,
	"cache_write_1h_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" bigint DEFAULT 0 NOT NULL,
	"cache_savings" bigint DEFAULT 0 NOT NULL,
	"latency_ms_sum" bigint DEFAULT 0 NOT NULL,
	"latency_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_daily_day_user_id_token_id_model_channel_id_pk" PRIMARY KEY("day","user_id","token_id","model","channel_id")
);
--> statement-breakpoint
DROP INDEX "request_logs_created_idx";--> statement-breakpoint
DROP INDEX "request_logs_token_idx";--> statement-breakpoint
DROP INDEX "request_logs_user_idx";--> statement-breakpoint
ALTER TABLE "request_logs" DROP CONSTRAINT "request_logs_pkey";--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_id_created_at_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
CREATE INDEX "usage_daily_user_day_idx" ON "usage_daily" USING btree ("user_id","day");--> statement-breakpoint
CREATE INDEX "request_logs_model_idx" ON "request_logs" USING btree ("model","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_channel_idx" ON "request_logs" USING btree ("channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_errors_idx" ON "request_logs" USING btree ("created_at","id") WHERE "request_logs"."status" >= 400;--> statement-breakpoint
CREATE INDEX "usage_hourly_user_hour_idx" ON "usage_hourly" USING btree ("user_id","hour");--> statement-breakpoint
CREATE INDEX "request_logs_created_idx" ON "request_logs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_token_idx" ON "request_logs" USING btree ("token_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_user_idx" ON "request_logs" USING btree ("user_id","created_at","id");--> statement-breakpoint
-- hand-written: begin
-- request_logs becomes a table partitioned by month of created_at (UTC months), so that the retention purge
-- drops whole partitions. The rows already there are not copied: the old table, with the primary key and
-- indexes built above, is attached as the partition of everything before next month
-- (request_logs_p_initial; its indexes are adopted as the partitions' own). The gateway's log-retention job
-- makes the monthly partitions ahead (request_logs_pYYYY_MM; the next two are made here) and drops them past the retention; the default
-- partition catches any row no partition covers, so an insert never fails.
ALTER TABLE "request_logs" RENAME TO "request_logs_p_initial";--> statement-breakpoint
ALTER TABLE "request_logs_p_initial" RENAME CONSTRAINT "request_logs_id_created_at_pk" TO "request_logs_p_initial_pkey";--> statement-breakpoint
ALTER INDEX "request_logs_created_idx" RENAME TO "request_logs_p_initial_created_idx";--> statement-breakpoint
ALTER INDEX "request_logs_token_idx" RENAME TO "request_logs_p_initial_token_idx";--> statement-breakpoint
ALTER INDEX "request_logs_user_idx" RENAME TO "request_logs_p_initial_user_idx";--> statement-breakpoint
ALTER INDEX "request_logs_model_idx" RENAME TO "request_logs_p_initial_model_idx";--> statement-breakpoint
ALTER INDEX "request_logs_channel_idx" RENAME TO "request_logs_p_initial_channel_idx";--> statement-breakpoint
ALTER INDEX "request_logs_errors_idx" RENAME TO "request_logs_p_initial_errors_idx";--> statement-breakpoint
CREATE TABLE "request_logs" (LIKE "request_logs_p_initial" INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE ("created_at");--> statement-breakpoint
ALTER SEQUENCE "request_logs_id_seq" OWNED BY "request_logs"."id";--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_id_created_at_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
CREATE INDEX "request_logs_created_idx" ON "request_logs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_token_idx" ON "request_logs" USING btree ("token_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_user_idx" ON "request_logs" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_model_idx" ON "request_logs" USING btree ("model","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_channel_idx" ON "request_logs" USING btree ("channel_id","created_at","id");--> statement-breakpoint
CREATE INDEX "request_logs_errors_idx" ON "request_logs" USING btree ("created_at","id") WHERE "request_logs"."status" >= 400;--> statement-breakpoint
DO $$
DECLARE
  next_month timestamptz := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  newest timestamptz;
  upper_bound timestamptz;
  month_index integer;
BEGIN
  SELECT max("created_at") INTO newest FROM "request_logs_p_initial";
  upper_bound := greatest(next_month, (date_trunc('month', newest AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC');
  EXECUTE format('ALTER TABLE "request_logs" ATTACH PARTITION "request_logs_p_initial" FOR VALUES FROM (MINVALUE) TO (%L)', upper_bound);
  FOR month_index IN 0..1 LOOP
    EXECUTE format(
      'CREATE TABLE %I PARTITION OF "request_logs" FOR VALUES FROM (%L) TO (%L)',
      'request_logs_p' || to_char((upper_bound + make_interval(months => month_index)) AT TIME ZONE 'UTC', 'YYYY_MM'),
      upper_bound + make_interval(months => month_index),
      upper_bound + make_interval(months => month_index + 1));
  END LOOP;
END $$;--> statement-breakpoint
CREATE TABLE "request_logs_default" PARTITION OF "request_logs" DEFAULT;--> statement-breakpoint
-- usage_daily follows usage_hourly: each statement that changes hourly rows (the write-behind's upserts, or
-- anyone's insert, update or delete) adds their difference to the rows of their UTC days, in the same
-- transaction: one grouped upsert per statement (transition tables), in key order.
CREATE FUNCTION tollgate_usage_daily_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO usage_daily (day, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count)
    SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', user_id, token_id, model, channel_id, sum(requests), sum(errors), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cache_write_1h_tokens), sum(cost), sum(cache_savings), sum(latency_ms_sum), sum(latency_count)
    FROM (SELECT hour, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count FROM new_rows) changed
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, user_id, token_id, model, channel_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests, errors = usage_daily.errors + excluded.errors, prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens, cached_tokens = usage_daily.cached_tokens + excluded.cached_tokens, cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens, cache_write_1h_tokens = usage_daily.cache_write_1h_tokens + excluded.cache_write_1h_tokens, cost = usage_daily.cost + excluded.cost, cache_savings = usage_daily.cache_savings + excluded.cache_savings, latency_ms_sum = usage_daily.latency_ms_sum + excluded.latency_ms_sum, latency_count = usage_daily.latency_count + excluded.latency_count;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO usage_daily (day, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count)
    SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', user_id, token_id, model, channel_id, sum(requests), sum(errors), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cache_write_1h_tokens), sum(cost), sum(cache_savings), sum(latency_ms_sum), sum(latency_count)
    FROM (SELECT hour, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count FROM new_rows UNION ALL SELECT hour, user_id, token_id, model, channel_id, -requests AS requests, -errors AS errors, -prompt_tokens AS prompt_tokens, -completion_tokens AS completion_tokens, -cached_tokens AS cached_tokens, -cache_write_tokens AS cache_write_tokens, -cache_write_1h_tokens AS cache_write_1h_tokens, -cost AS cost, -cache_savings AS cache_savings, -latency_ms_sum AS latency_ms_sum, -latency_count AS latency_count FROM old_rows) changed
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, user_id, token_id, model, channel_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests, errors = usage_daily.errors + excluded.errors, prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens, cached_tokens = usage_daily.cached_tokens + excluded.cached_tokens, cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens, cache_write_1h_tokens = usage_daily.cache_write_1h_tokens + excluded.cache_write_1h_tokens, cost = usage_daily.cost + excluded.cost, cache_savings = usage_daily.cache_savings + excluded.cache_savings, latency_ms_sum = usage_daily.latency_ms_sum + excluded.latency_ms_sum, latency_count = usage_daily.latency_count + excluded.latency_count;
  ELSE
    INSERT INTO usage_daily (day, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count)
    SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', user_id, token_id, model, channel_id, sum(requests), sum(errors), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cache_write_1h_tokens), sum(cost), sum(cache_savings), sum(latency_ms_sum), sum(latency_count)
    FROM (SELECT hour, user_id, token_id, model, channel_id, -requests AS requests, -errors AS errors, -prompt_tokens AS prompt_tokens, -completion_tokens AS completion_tokens, -cached_tokens AS cached_tokens, -cache_write_tokens AS cache_write_tokens, -cache_write_1h_tokens AS cache_write_1h_tokens, -cost AS cost, -cache_savings AS cache_savings, -latency_ms_sum AS latency_ms_sum, -latency_count AS latency_count FROM old_rows) changed
    GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (day, user_id, token_id, model, channel_id) DO UPDATE SET requests = usage_daily.requests + excluded.requests, errors = usage_daily.errors + excluded.errors, prompt_tokens = usage_daily.prompt_tokens + excluded.prompt_tokens, completion_tokens = usage_daily.completion_tokens + excluded.completion_tokens, cached_tokens = usage_daily.cached_tokens + excluded.cached_tokens, cache_write_tokens = usage_daily.cache_write_tokens + excluded.cache_write_tokens, cache_write_1h_tokens = usage_daily.cache_write_1h_tokens + excluded.cache_write_1h_tokens, cost = usage_daily.cost + excluded.cost, cache_savings = usage_daily.cache_savings + excluded.cache_savings, latency_ms_sum = usage_daily.latency_ms_sum + excluded.latency_ms_sum, latency_count = usage_daily.latency_count + excluded.latency_count;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER usage_hourly_daily_insert AFTER INSERT ON usage_hourly REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_usage_daily_follow();--> statement-breakpoint
CREATE TRIGGER usage_hourly_daily_update AFTER UPDATE ON usage_hourly REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_usage_daily_follow();--> statement-breakpoint
CREATE TRIGGER usage_hourly_daily_delete AFTER DELETE ON usage_hourly REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tollgate_usage_daily_follow();--> statement-breakpoint
INSERT INTO usage_daily (day, user_id, token_id, model, channel_id, requests, errors, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, cache_write_1h_tokens, cost, cache_savings, latency_ms_sum, latency_count)
SELECT date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', user_id, token_id, model, channel_id, sum(requests), sum(errors), sum(prompt_tokens), sum(completion_tokens), sum(cached_tokens), sum(cache_write_tokens), sum(cache_write_1h_tokens), sum(cost), sum(cache_savings), sum(latency_ms_sum), sum(latency_count)
FROM usage_hourly GROUP BY 1, 2, 3, 4, 5;
-- hand-written: end
