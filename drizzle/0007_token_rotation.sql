ALTER TABLE "tokens" ADD COLUMN "previous_key_hash" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_prefix" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "previous_key_last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "rolled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tokens" ADD CONSTRAINT "tokens_previous_key_hash_unique" UNIQUE("previous_key_hash");--> statement-breakpoint
-- As in 0001, and: the write-behind's previous_key_last_used_at is a usage write too; and a token's other
-- secrets (the one a roll replaced, still in its grace period, and the one replaced before it) are
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
       AND (row_data - 'used_quota' - 'last_used_at' - 'previous_key_last_used_at' - 'updated_at')
         = (old_data - 'used_quota' - 'last_used_at' - 'previous_key_last_used_at' - 'updated_at') THEN
      kind := 'usage';
    ELSIF TG_TABLE_NAME = 'users'
       AND (row_data - 'balance' - 'updated_at') = (old_data - 'balance' - 'updated_at') THEN
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
