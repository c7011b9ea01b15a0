-- Every write to a cached table tells every gateway what changed, whoever wrote it (console, CLI, psql):
-- these triggers call tollgate_notify_change(), whose body is written once, in the latest migration that
-- changed it (0010_budget_periods_spend_alerts.sql). Here it is only declared, so that the triggers can
-- name it: drizzle applies all pending migrations in one transaction, so a database that applies this
-- file applies 0010 in the same transaction and never commits this placeholder body.
CREATE OR REPLACE FUNCTION tollgate_notify_change() RETURNS trigger AS $$
BEGIN
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
