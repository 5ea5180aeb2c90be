-- Organizations own everything (api-contract section 12). Each user gets a personal organization with the user's
-- own id, so existing rows move into it by renaming their user_id to org_id: no row is rewritten.
CREATE TABLE "organizations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"personal_user_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "organizations_slug_unique" UNIQUE("slug"),
	CONSTRAINT "organizations_personal_user_id_unique" UNIQUE("personal_user_id")
);--> statement-breakpoint
CREATE TABLE "memberships" (
	"org_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_org_id_user_id_pk" PRIMARY KEY("org_id","user_id"),
	CONSTRAINT "memberships_role_check" CHECK ("memberships"."role" in ('viewer', 'responder', 'editor', 'admin', 'owner'))
);--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_personal_user_id_users_id_fk" FOREIGN KEY ("personal_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
-- The slug of a personal organization: the email's local part as a slug, and the first 8 hex digits of the id.
CREATE FUNCTION "personal_organization_slug"(email text, id uuid) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(nullif(trim(both '-' from left(regexp_replace(lower(split_part(email, '@', 1)), '[^a-z0-9]+', '-', 'g'), 40)), ''), 'user')
    || '-' || left(replace(id::text, '-', ''), 8)
$$;--> statement-breakpoint
CREATE FUNCTION "make_personal_organization"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO organizations (id, name, slug, personal_user_id, created_at)
    VALUES (NEW.id, NEW.email, personal_organization_slug(NEW.email, NEW.id), NEW.id, NEW.created_at);
  INSERT INTO memberships (org_id, user_id, role, created_at) VALUES (NEW.id, NEW.id, 'owner', NEW.created_at);
  RETURN NULL;
END
$$;--> statement-breakpoint
INSERT INTO "organizations" ("id", "name", "slug", "personal_user_id", "created_at")
  SELECT "id", "email", personal_organization_slug("email", "id"), "id", "created_at" FROM "users";--> statement-breakpoint
INSERT INTO "memberships" ("org_id", "user_id", "role", "created_at") SELECT "id", "id", 'owner', "created_at" FROM "users";--> statement-breakpoint
CREATE TRIGGER "users_make_personal_organization" AFTER INSERT ON "users"
  FOR EACH ROW EXECUTE FUNCTION "make_personal_organization"();--> statement-breakpoint
ALTER TABLE "monitors" RENAME COLUMN "user_id" TO "org_id";--> statement-breakpoint
ALTER TABLE "monitors" DROP CONSTRAINT "monitors_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER INDEX "monitors_user_created_idx" RENAME TO "monitors_org_created_idx";--> statement-breakpoint
ALTER TABLE "notification_channels" RENAME COLUMN "user_id" TO "org_id";--> statement-breakpoint
ALTER TABLE "notification_channels" DROP CONSTRAINT "notification_channels_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "notification_channels" ADD CONSTRAINT "notification_channels_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER INDEX "notification_channels_user_created_idx" RENAME TO "notification_channels_org_created_idx";--> statement-breakpoint
ALTER TABLE "notification_events" RENAME COLUMN "user_id" TO "org_id";--> statement-breakpoint
ALTER TABLE "notification_events" DROP CONSTRAINT "notification_events_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "notification_events" ADD CONSTRAINT "notification_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" RENAME COLUMN "user_id" TO "org_id";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_user_id_users_id_fk";--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "idempotency_keys" RENAME CONSTRAINT "idempotency_keys_user_id_key_pk" TO "idempotency_keys_org_id_key_pk";--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "org_id" uuid;--> statement-breakpoint
UPDATE "api_keys" SET "org_id" = "user_id";--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "org_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("org_id");--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "org_id" uuid;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Live dashboards (drizzle/0023_live_updates.sql) follow an organization: `owner` is now the organization's id.
CREATE OR REPLACE FUNCTION "notify_monitor_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pingward_changes', json_build_object('owner', NEW.org_id, 'kind', 'monitor', 'id', NEW.id)::text);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "notify_channel_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'notification_channels' THEN
    PERFORM pg_notify('pingward_changes', json_build_object('owner', NEW.org_id, 'kind', 'channel', 'id', NEW.id)::text);
  ELSE
    PERFORM pg_notify('pingward_changes', json_build_object('owner', c.org_id, 'kind', 'channel', 'id', c.id)::text)
      FROM notification_channels c WHERE c.id = NEW.channel_id;
  END IF;
  RETURN NULL;
END
$$;
