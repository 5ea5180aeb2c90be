DROP INDEX "monitor_pauses_resumed_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "monitor_pauses_one_open_idx" ON "monitor_pauses" USING btree ("monitor_id") WHERE "monitor_pauses"."resumed_at" is null;--> statement-breakpoint
CREATE INDEX "monitor_pauses_resumed_idx" ON "monitor_pauses" USING btree ("resumed_at") WHERE "monitor_pauses"."resumed_at" is not null;