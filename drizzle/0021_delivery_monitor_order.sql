ALTER TABLE "notification_deliveries" ADD COLUMN "monitor_id" uuid;--> statement-breakpoint
UPDATE "notification_deliveries" d SET "monitor_id" = e."monitor_id" FROM "notification_events" e WHERE e."id" = d."event_id" AND d."status" in ('pending', 'failed');--> statement-breakpoint
CREATE INDEX "notification_deliveries_channel_monitor_idx" ON "notification_deliveries" USING btree ("channel_id","monitor_id","created_at","next_attempt_at") WHERE "notification_deliveries"."status" in ('pending', 'failed') and "notification_deliveries"."monitor_id" is not null;
