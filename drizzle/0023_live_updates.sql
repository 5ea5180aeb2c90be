-- Live dashboards: what a page shows notifies `pingward_changes` ({owner, kind, id}) on commit, whoever writes it.
-- Every recorded check, incident, edit, pause and delete updates its monitor's status, last_checked_at or
-- updated_at; a claim's scheduling columns alone notify nothing.
CREATE FUNCTION "notify_monitor_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pingward_changes', json_build_object('owner', NEW.user_id, 'kind', 'monitor', 'id', NEW.id)::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "monitors_notify_insert" AFTER INSERT ON "monitors"
  FOR EACH ROW EXECUTE FUNCTION "notify_monitor_change"();--> statement-breakpoint
CREATE TRIGGER "monitors_notify_update" AFTER UPDATE ON "monitors" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.last_checked_at IS DISTINCT FROM NEW.last_checked_at
    OR OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION "notify_monitor_change"();--> statement-breakpoint
-- A channel's page: its deliveries (made, attempted, retried) and the channel itself (edited, turned off).
CREATE FUNCTION "notify_channel_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'notification_channels' THEN
    PERFORM pg_notify('pingward_changes', json_build_object('owner', NEW.user_id, 'kind', 'channel', 'id', NEW.id)::text);
  ELSE
    PERFORM pg_notify('pingward_changes', json_build_object('owner', c.user_id, 'kind', 'channel', 'id', c.id)::text)
      FROM notification_channels c WHERE c.id = NEW.channel_id;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "notification_channels_notify_update" AFTER UPDATE ON "notification_channels" FOR EACH ROW
  WHEN (OLD.updated_at IS DISTINCT FROM NEW.updated_at)
  EXECUTE FUNCTION "notify_channel_change"();--> statement-breakpoint
CREATE TRIGGER "notification_deliveries_notify_insert" AFTER INSERT ON "notification_deliveries"
  FOR EACH ROW EXECUTE FUNCTION "notify_channel_change"();--> statement-breakpoint
CREATE TRIGGER "notification_deliveries_notify_update" AFTER UPDATE ON "notification_deliveries" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.attempts IS DISTINCT FROM NEW.attempts
    OR OLD.next_attempt_at IS DISTINCT FROM NEW.next_attempt_at)
  EXECUTE FUNCTION "notify_channel_change"();
