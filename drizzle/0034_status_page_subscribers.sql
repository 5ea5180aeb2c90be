CREATE TABLE "status_page_announcements" (
	"window_id" uuid PRIMARY KEY NOT NULL,
	"announced_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "status_page_mails" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"subscriber_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"text" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp (3) with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"sent_at" timestamp (3) with time zone,
	"failed_at" timestamp (3) with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "status_page_subscribers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"page_id" uuid NOT NULL,
	"email" text NOT NULL,
	"token" text NOT NULL,
	"confirmed_at" timestamp (3) with time zone,
	"confirmation_sent_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "status_page_announcements" ADD CONSTRAINT "status_page_announcements_window_id_maintenance_windows_id_fk" FOREIGN KEY ("window_id") REFERENCES "public"."maintenance_windows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_page_mails" ADD CONSTRAINT "status_page_mails_subscriber_id_status_page_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."status_page_subscribers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_page_subscribers" ADD CONSTRAINT "status_page_subscribers_page_id_status_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."status_pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "status_page_mails_due_idx" ON "status_page_mails" USING btree ("due_at") WHERE "status_page_mails"."sent_at" is null and "status_page_mails"."failed_at" is null;--> statement-breakpoint
CREATE INDEX "status_page_mails_subscriber_idx" ON "status_page_mails" USING btree ("subscriber_id");--> statement-breakpoint
CREATE UNIQUE INDEX "status_page_subscribers_email_idx" ON "status_page_subscribers" USING btree ("page_id",lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX "status_page_subscribers_token_idx" ON "status_page_subscribers" USING btree ("token");