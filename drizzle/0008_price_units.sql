ALTER TABLE "model_prices" ADD COLUMN "price_unit" text DEFAULT 'token' NOT NULL;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "unit_price" bigint;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "image_prices" jsonb;--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "default_max_tokens" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "billed_unit" text DEFAULT 'token' NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "billed_quantity" double precision;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_price_unit_check" CHECK ("price_unit" IN ('token', 'image', 'audio_second', 'character', 'request'));
