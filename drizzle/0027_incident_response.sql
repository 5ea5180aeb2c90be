CREATE TABLE "incident_notes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"incident_id" uuid NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL,
	"actor" jsonb NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notification_channels" DROP CONSTRAINT "notification_channels_events_check";--> statement-breakpoint
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_type_check";--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "acknowledged_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "acknowledged_by" jsonb;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "during_maintenance" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "suppressed_by" uuid;--> statement-breakpoint
ALTER TABLE "incident_notes" ADD CONSTRAINT "incident_notes_incident_id_incidents_id_fk" FOREIGN KEY ("incident_id") REFERENCES "public"."incidents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "incident_notes_incident_idx" ON "incident_notes" USING btree ("incident_id","created_at");--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_suppressed_by_incidents_id_fk" FOREIGN KEY ("suppressed_by") REFERENCES "public"."incidents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "incidents_suppressed_by_idx" ON "incidents" USING btree ("suppressed_by") WHERE "incidents"."suppressed_by" is not null;--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_events_check" CHECK ("notification_channels"."events" <@ array['incident.opened', 'incident.resolved', 'incident.acknowledged', 'monitor.degraded', 'heartbeat.missed', 'tls.expiring', 'test']::text[]);--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_type_check" CHECK ("notification_events"."type" in ('incident.opened', 'incident.resolved', 'incident.acknowledged', 'monitor.degraded', 'heartbeat.missed', 'tls.expiring', 'test'));