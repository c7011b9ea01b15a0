ALTER TABLE "model_prices" ADD COLUMN "cache_hit_price" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "response_cache" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "response_cache_ttl_seconds" integer;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "response_cache_scope" text DEFAULT 'user' NOT NULL;