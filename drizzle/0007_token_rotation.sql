ALTER TABLE "tokens" ADD COLUMN "previous_key_hash" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_prefix" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "rolled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_previous_key_hash_unique" UNIQUE("previous_key_hash");
