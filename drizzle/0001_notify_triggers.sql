-- Every write to a cached table tells every gateway what changed, whoever wrote it (console, CLI, psql).
-- Payloads carry ids and key hashes only. "kind" is "usage" when a write only moved spend counters
-- (gateways refresh those in the background) and "change" otherwise (gateways evict at once).
CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
DECLARE
  row_data jsonb;
  old_data jsonb;
  kind text := 'change';
  payload jsonb;
BEGIN
  IF TG_OP = 'DELETE' THEN
    row_data := to_jsonb(OLD);
  ELSE
    row_data := to_jsonb(NEW);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    old_data := to_jsonb(OLD);
    IF TG_TABLE_NAME = 'tokens'
       AND (row_data - 'used_quota' - 'last_used_at' - 'updated_at') = (old_data - 'used_quota' - 'last_used_at' - 'updated_at') THEN
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
    payload := payload || jsonb_build_object('key_hash', row_data->>'key_hash');
  END IF;
  PERFORM pg_notify('tollgate_invalidate', payload::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER tokens_notify AFTER INSERT OR UPDATE OR DELETE ON tokens FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
--> statement-breakpoint
CREATE TRIGGER users_notify AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
--> statement-breakpoint
CREATE TRIGGER channels_notify AFTER INSERT OR UPDATE OR DELETE ON channels FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
--> statement-breakpoint
CREATE TRIGGER model_prices_notify AFTER INSERT OR UPDATE OR DELETE ON model_prices FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
--> statement-breakpoint
CREATE TRIGGER settings_notify AFTER INSERT OR UPDATE OR DELETE ON settings FOR EACH ROW EXECUTE FUNCTION tollgate_notify_change();
