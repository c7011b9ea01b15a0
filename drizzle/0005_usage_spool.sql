CREATE TABLE "request_log_dead_letters" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"request_id" text NOT NULL,
	"error" text NOT NULL,
	"row" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_spool_checkpoints" (
	"spool_id" text PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "request_log_dead_letters_created_idx" ON "request_log_dead_letters" USING btree ("created_at" DESC NULLS LAST);