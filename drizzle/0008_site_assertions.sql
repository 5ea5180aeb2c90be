ALTER TABLE "monitors" DROP CONSTRAINT "monitors_status_check";--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "keyword" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "keyword_mode" text DEFAULT 'contains' NOT NULL;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "degraded_after_ms" integer;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "request_headers" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "request_body" text;--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_keyword_mode_check" CHECK ("monitors"."keyword_mode" in ('contains', 'not_contains'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_status_check" CHECK ("monitors"."status" in ('pending', 'up', 'degraded', 'down', 'paused'));