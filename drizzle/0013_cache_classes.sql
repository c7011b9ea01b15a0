ALTER TABLE "model_prices" ADD COLUMN "cache_write_price" bigint;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "cache_write_1h_price" bigint;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_write_1h_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "cache_savings" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "cache_write_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "cache_write_1h_tokens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_hourly" ADD COLUMN "cache_savings" bigint DEFAULT 0 NOT NULL;