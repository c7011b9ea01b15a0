CREATE TABLE "spend_alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subject_kind" text NOT NULL,
	"subject_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"token_id" bigint,
	"token_name" text,
	"user_name" text NOT NULL,
	"period" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone,
	"threshold" integer NOT NULL,
	"spent" bigint NOT NULL,
	"limit" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now(),
	"locked_until" timestamp with time zone,
	"last_error" text,
	CONSTRAINT "spend_alerts_once" UNIQUE("subject_kind","subject_id","period_start","threshold")
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "budget_period" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "budget_time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "period_used" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "alert_thresholds" integer[];--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "budget_limit" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "used_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "budget_period" text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "budget_time_zone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "period_used" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "alert_thresholds" integer[];--> statement-breakpoint
CREATE INDEX "spend_alerts_due_idx" ON "spend_alerts" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "spend_alerts_created_idx" ON "spend_alerts" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
-- A user's lifetime spend starts from the hourly rollup, which holds every call ever billed.
UPDATE "users" SET "used_total" = coalesce((SELECT sum("cost") FROM "usage_hourly" WHERE "usage_hourly"."user_id" = "users"."id"), 0);--> statement-breakpoint
-- The body of the triggers of 0001, kept here only (0001 declares the function; a database that applied
-- 0001..0009 before this migration existed has an older body, which this replaces). Every write to a cached
-- table tells every gateway what changed, whoever wrote it (console, CLI, psql). Payloads carry ids and key
-- hashes only. "kind" is "usage" when a write only moved spend counters: a token's used quota, period spend
-- and last-used times (of its current and its previous secret), a user's balance, period and lifetime
-- spend (gateways refresh those in the background); "change" otherwise (gateways evict at once). A token's
-- other secrets (the one a roll replaced, still in its grace period, and the one replaced before it) are
-- announced by hash before the current one, so that every gateway evicts every cached secret of the row
-- and the current hash is the last one it maps the token's id to.
CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
DECLARE
  row_data jsonb;
  old_data jsonb;
  kind text := 'change';
  payload jsonb;
  other_hash text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    row_data := to_jsonb(OLD);
  ELSE
    row_data := to_jsonb(NEW);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    old_data := to_jsonb(OLD);
    IF TG_TABLE_NAME = 'tokens'
       AND (row_data - 'used_quota' - 'period_start' - 'period_used' - 'last_used_at' - 'previous_key_last_used_at' - 'updated_at')
         = (old_data - 'used_quota' - 'period_start' - 'period_used' - 'last_used_at' - 'previous_key_last_used_at' - 'updated_at') THEN
      kind := 'usage';
    ELSIF TG_TABLE_NAME = 'users'
       AND (row_data - 'balance' - 'used_total' - 'period_start' - 'period_used' - 'updated_at')
         = (old_data - 'balance' - 'used_total' - 'period_start' - 'period_used' - 'updated_at') THEN
      kind := 'usage';
    END IF;
  END IF;
  payload := jsonb_build_object('table', TG_TABLE_NAME, 'op', lower(TG_OP), 'kind', kind);
  IF TG_TABLE_NAME = 'model_prices' THEN
    payload := payload || jsonb_build_object('model', row_data->>'model');
  ELSIF TG_TABLE_NAME = 'settings' THEN
    payload := payload || jsonb_build_object('key', row_data->>'key');
  ELSE
    payload := payload || jsonb_build_object('id', (row_data->>'id')::bigint);
  END IF;
  IF TG_TABLE_NAME = 'tokens' THEN
    FOR other_hash IN
      SELECT DISTINCT hash FROM unnest(ARRAY[old_data->>'key_hash', old_data->>'previous_key_hash', row_data->>'previous_key_hash']) AS hash
      WHERE hash IS NOT NULL AND hash <> row_data->>'key_hash'
    LOOP
      PERFORM pg_notify('tollgate_invalidate', (payload || jsonb_build_object('key_hash', other_hash))::text);
    END LOOP;
    payload := payload || jsonb_build_object('key_hash', row_data->>'key_hash');
  END IF;
  PERFORM pg_notify('tollgate_invalidate', payload::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
