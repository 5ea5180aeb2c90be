-- Agents' long polls wait on the change feed: a monitor's pause by a maintenance window changes its assignments,
-- and an agent location's token rotated or the location deleted must answer its held poll with 401 at once.
DROP TRIGGER "monitors_notify_update" ON "monitors";--> statement-breakpoint
CREATE TRIGGER "monitors_notify_update" AFTER UPDATE ON "monitors" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.last_checked_at IS DISTINCT FROM NEW.last_checked_at
    OR OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.in_maintenance IS DISTINCT FROM NEW.in_maintenance
    OR OLD.maintenance_paused IS DISTINCT FROM NEW.maintenance_paused)
  EXECUTE FUNCTION "notify_monitor_change"();--> statement-breakpoint
CREATE FUNCTION "notify_location_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pingward_changes', json_build_object('owner', OLD.org_id, 'kind', 'location', 'id', OLD.id)::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "locations_notify_token" AFTER UPDATE ON "locations" FOR EACH ROW
  WHEN (OLD.org_id IS NOT NULL AND OLD.token_hash IS DISTINCT FROM NEW.token_hash)
  EXECUTE FUNCTION "notify_location_change"();--> statement-breakpoint
CREATE TRIGGER "locations_notify_delete" AFTER DELETE ON "locations" FOR EACH ROW
  WHEN (OLD.org_id IS NOT NULL)
  EXECUTE FUNCTION "notify_location_change"();
