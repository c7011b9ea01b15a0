CREATE TABLE "team_members" (
	"team_id" bigint NOT NULL,
	"user_id" bigint NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"source" text DEFAULT 'manual' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"oidc_group" text,
	"budget_limit" bigint,
	"used_total" bigint DEFAULT 0 NOT NULL,
	"budget_period" text DEFAULT 'none' NOT NULL,
	"budget_time_zone" text DEFAULT 'UTC' NOT NULL,
	"period_start" timestamp with time zone,
	"period_used" bigint DEFAULT 0 NOT NULL,
	"alert_thresholds" integer[],
	"allowed_models" text[] DEFAULT '{}'::text[] NOT NULL,
	"allowed_ips" text[] DEFAULT '{}'::text[] NOT NULL,
	"rpm_limit" integer,
	"tpm_limit" integer,
	"status" text DEFAULT 'enabled' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_name_unique" UNIQUE("name"),
	CONSTRAINT "teams_oidc_group_unique" UNIQUE("oidc_group")
);
--> statement-breakpoint
ALTER TABLE "spend_alerts" ALTER COLUMN "user_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_alerts" ALTER COLUMN "user_name" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "spend_alerts" ADD COLUMN "team_id" bigint;--> statement-breakpoint
ALTER TABLE "spend_alerts" ADD COLUMN "team_name" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "team_id" bigint;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "oidc_subject" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_user_idx" ON "team_members" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tokens_team_idx" ON "tokens" USING btree ("team_id");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_oidc_subject_unique" UNIQUE("oidc_subject");
--> statement-breakpoint
-- hand-written: begin
-- Teams are cached by the gateways like users: the body of tollgate_notify_change() (last written in 0010)
-- again, with a team's spend counters (lifetime and period spend) reported as `usage` like a user's. The
-- columns that only spend moves are listed per table, and an update that changed none but those is `usage`.
CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
DECLARE
  row_data jsonb;
  old_data jsonb;
  usage_columns text[];
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
    usage_columns := CASE TG_TABLE_NAME
      WHEN 'tokens' THEN ARRAY['used_quota', 'period_start', 'period_used', 'last_used_at', 'previous_key_last_used_at', 'updated_at']
      WHEN 'users' THEN ARRAY['balance', 'used_total', 'period_start', 'period_used', 'updated_at']
      WHEN 'teams' THEN ARRAY['used_total', 'period_start', 'period_used', 'updated_at']
    END;
    IF usage_columns IS NOT NULL AND (row_data - usage_columns) = (old_data - usage_columns) THEN
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
--> statement-breakpoint
CREATE TRIGGER teams_notify AFTER INSERT OR UPDATE OR DELETE ON teams FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
-- hand-written: end
