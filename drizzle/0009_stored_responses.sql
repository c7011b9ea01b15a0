CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"token_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"channel_id" bigint NOT NULL,
	"native" boolean NOT NULL,
	"model" text NOT NULL,
	"input_items" jsonb NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stored_responses_expires_idx" ON "stored_responses" USING btree ("expires_at");