ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_check" CHECK ("api_keys"."scope" in ('read', 'write'));--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_status_check" CHECK ("incidents"."status" in ('open', 'resolved'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_monitor_type_check" CHECK ("monitors"."monitor_type" in ('site'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_method_check" CHECK ("monitors"."method" in ('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'));--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_status_check" CHECK ("monitors"."status" in ('pending', 'up', 'down', 'paused'));