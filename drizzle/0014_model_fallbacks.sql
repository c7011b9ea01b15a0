ALTER TABLE "model_prices" ADD COLUMN "fallback_models" text[];--> statement-breakpoint
ALTER TABLE "model_prices" ADD COLUMN "context_window" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "requested_model" text;