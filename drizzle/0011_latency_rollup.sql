ALTER TABLE "usage_hourly" ADD COLUMN "latency_ms_sum" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "latency_count" integer DEFAULT 0 NOT NULL;