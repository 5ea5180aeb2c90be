ALTER TABLE "monitors" DROP CONSTRAINT "monitors_monitor_type_check";--> statement-breakpoint
ALTER TABLE "notification_channels" DROP CONSTRAINT "notification_channels_events_check";--> statement-breakpoint
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_type_check";--> statement-breakpoint
DROP INDEX "monitors_due_idx";--> statement-breakpoint
ALTER TABLE "monitors" ALTER COLUMN "url" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "checks" ADD COLUMN "ping_body" text;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "kind" text DEFAULT 'down' NOT NULL;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "dns_record_type" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "dns_expected" text[];--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "grace_minutes" smallint;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "ping_token" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "consecutive_slow" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "monitors_heartbeat_due_idx" ON "monitors" USING btree ("next_check_at") WHERE "monitors"."deleted_at" is null and "monitors"."is_active" and "monitors"."monitor_type" = 'heartbeat';--> statement-breakpoint
CREATE INDEX "monitors_due_idx" ON "monitors" USING btree ("next_check_at") WHERE "monitors"."deleted_at" is null and "monitors"."is_active" and "monitors"."monitor_type" <> 'heartbeat';--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_ping_token_unique" UNIQUE("ping_token");--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_kind_check" CHECK ("incidents"."kind" in ('down', 'degraded'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_dns_record_type_check" CHECK ("monitors"."dns_record_type" in ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_url_check" CHECK (("monitors"."url" is null) = ("monitors"."monitor_type" = 'heartbeat'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_monitor_type_check" CHECK ("monitors"."monitor_type" in ('site', 'tcp', 'dns', 'heartbeat'));--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_events_check" CHECK ("notification_channels"."events" <@ array['incident.opened', 'incident.resolved', 'monitor.degraded', 'tls.expiring', 'test']::text[]);--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_type_check" CHECK ("notification_events"."type" in ('incident.opened', 'incident.resolved', 'monitor.degraded', 'tls.expiring', 'test'));