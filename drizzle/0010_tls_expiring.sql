ALTER TABLE "notification_channels" DROP CONSTRAINT "notification_channels_events_check";--> statement-breakpoint
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_type_check";--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "tls_expiry_told_days" smallint;--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_events_check" CHECK ("notification_channels"."events" <@ array['incident.opened', 'incident.resolved', 'tls.expiring', 'test']::text[]);--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_type_check" CHECK ("notification_events"."type" in ('incident.opened', 'incident.resolved', 'tls.expiring', 'test'));