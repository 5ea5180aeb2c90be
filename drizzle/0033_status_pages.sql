CREATE TABLE "status_page_components" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"page_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"group_name" text,
	"position" integer DEFAULT 0 NOT NULL,
	"monitor_id" uuid,
	"label_selector" text[],
	"manual_status" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_page_components_manual_status_check" CHECK ("status_page_components"."manual_status" in ('operational', 'under_maintenance', 'degraded_performance', 'partial_outage', 'major_outage')),
	CONSTRAINT "status_page_components_source_check" CHECK (num_nonnulls("status_page_components"."monitor_id", "status_page_components"."label_selector", "status_page_components"."manual_status") = 1)
);
--> statement-breakpoint
CREATE TABLE "status_pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"homepage_url" text,
	"published" boolean DEFAULT false NOT NULL,
	"access" text DEFAULT 'public' NOT NULL,
	"password_hash" text,
	"history_days" integer DEFAULT 90 NOT NULL,
	"custom_domain" text,
	"domain_token" text NOT NULL,
	"domain_verified_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_pages_access_check" CHECK ("status_pages"."access" in ('public', 'password')),
	CONSTRAINT "status_pages_history_days_check" CHECK ("status_pages"."history_days" between 7 and 365),
	CONSTRAINT "status_pages_password_check" CHECK ("status_pages"."access" = 'public' or "status_pages"."password_hash" is not null)
);
--> statement-breakpoint
CREATE TABLE "status_report_updates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"report_id" uuid NOT NULL,
	"status" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "status_report_updates_status_check" CHECK ("status_report_updates"."status" in ('investigating', 'identified', 'monitoring', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "status_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"title" text NOT NULL,
	"status" text NOT NULL,
	"impact" text NOT NULL,
	"status_page_ids" uuid[] NOT NULL,
	"component_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	CONSTRAINT "status_reports_status_check" CHECK ("status_reports"."status" in ('investigating', 'identified', 'monitoring', 'resolved')),
	CONSTRAINT "status_reports_impact_check" CHECK ("status_reports"."impact" in ('none', 'minor', 'major', 'critical'))
);
--> statement-breakpoint
ALTER TABLE "status_page_components" ADD CONSTRAINT "status_page_components_page_id_status_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."status_pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_page_components" ADD CONSTRAINT "status_page_components_monitor_id_monitors_id_fk" FOREIGN KEY ("monitor_id") REFERENCES "public"."monitors"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_pages" ADD CONSTRAINT "status_pages_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_report_updates" ADD CONSTRAINT "status_report_updates_report_id_status_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."status_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_reports" ADD CONSTRAINT "status_reports_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "status_page_components_page_idx" ON "status_page_components" USING btree ("page_id","position");--> statement-breakpoint
CREATE INDEX "status_page_components_monitor_idx" ON "status_page_components" USING btree ("monitor_id");--> statement-breakpoint
CREATE UNIQUE INDEX "status_pages_slug_idx" ON "status_pages" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "status_pages_custom_domain_idx" ON "status_pages" USING btree ("custom_domain");--> statement-breakpoint
CREATE INDEX "status_pages_org_idx" ON "status_pages" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "status_report_updates_report_idx" ON "status_report_updates" USING btree ("report_id","created_at");--> statement-breakpoint
CREATE INDEX "status_reports_org_idx" ON "status_reports" USING btree ("org_id","created_at","id");--> statement-breakpoint
CREATE INDEX "status_reports_pages_idx" ON "status_reports" USING gin ("status_page_ids");--> statement-breakpoint
-- Public status pages (src/status-pages/) are rebuilt on change: what they show notifies `pingward_changes` as
-- kind `status` (owner: the organization), and a monitor entering or leaving maintenance notifies as a monitor.
CREATE OR REPLACE FUNCTION "notify_status_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  row_org uuid;
BEGIN
  IF TG_TABLE_NAME = 'status_page_components' THEN
    SELECT p.org_id INTO row_org FROM status_pages p WHERE p.id = COALESCE(NEW.page_id, OLD.page_id);
  ELSIF TG_TABLE_NAME = 'status_report_updates' THEN
    SELECT r.org_id INTO row_org FROM status_reports r WHERE r.id = COALESCE(NEW.report_id, OLD.report_id);
  ELSIF TG_OP = 'DELETE' THEN
    row_org := OLD.org_id;
  ELSE
    row_org := NEW.org_id;
  END IF;
  IF row_org IS NOT NULL THEN
    PERFORM pg_notify('pingward_changes', json_build_object('owner', row_org, 'kind', 'status', 'id', row_org)::text);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "status_pages_notify" AFTER INSERT OR UPDATE OR DELETE ON "status_pages"
  FOR EACH ROW EXECUTE FUNCTION "notify_status_change"();--> statement-breakpoint
CREATE TRIGGER "status_page_components_notify" AFTER INSERT OR UPDATE OR DELETE ON "status_page_components"
  FOR EACH ROW EXECUTE FUNCTION "notify_status_change"();--> statement-breakpoint
CREATE TRIGGER "status_reports_notify" AFTER INSERT OR UPDATE OR DELETE ON "status_reports"
  FOR EACH ROW EXECUTE FUNCTION "notify_status_change"();--> statement-breakpoint
CREATE TRIGGER "status_report_updates_notify" AFTER INSERT OR UPDATE OR DELETE ON "status_report_updates"
  FOR EACH ROW EXECUTE FUNCTION "notify_status_change"();--> statement-breakpoint
CREATE TRIGGER "maintenance_windows_notify" AFTER INSERT OR UPDATE OR DELETE ON "maintenance_windows"
  FOR EACH ROW EXECUTE FUNCTION "notify_status_change"();--> statement-breakpoint
DROP TRIGGER "monitors_notify_update" ON "monitors";--> statement-breakpoint
CREATE TRIGGER "monitors_notify_update" AFTER UPDATE ON "monitors" FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.last_checked_at IS DISTINCT FROM NEW.last_checked_at
    OR OLD.updated_at IS DISTINCT FROM NEW.updated_at OR OLD.in_maintenance IS DISTINCT FROM NEW.in_maintenance)
  EXECUTE FUNCTION "notify_monitor_change"();
