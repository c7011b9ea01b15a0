DROP INDEX "request_logs_created_idx";--> statement-breakpoint
DROP INDEX "request_logs_token_idx";--> statement-breakpoint
DROP INDEX "request_logs_user_idx";--> statement-breakpoint
ALTER TABLE "request_logs" DROP CONSTRAINT "request_logs_pkey";--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_id_created_at_pk" PRIMARY KEY("id","created_at");--> statement-breakpoint
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
CREATE TABLE "request_logs_default" PARTITION OF "request_logs" DEFAULT;
-- hand-written: end
