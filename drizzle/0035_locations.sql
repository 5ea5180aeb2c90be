CREATE TABLE "locations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text,
	"token_prefix" text,
	"last_seen_at" timestamp (3) with time zone,
	"version" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "locations_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "locations_kind_check" CHECK ("locations"."kind" in ('builtin', 'agent')),
	CONSTRAINT "locations_code_check" CHECK ("locations"."code" ~ '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$' and char_length("locations"."code") between 2 and 32),
	CONSTRAINT "locations_owner_check" CHECK (("locations"."kind" = 'builtin' and "locations"."org_id" is null and "locations"."token_hash" is null) or ("locations"."kind" = 'agent' and "locations"."org_id" is not null and "locations"."token_hash" is not null))
);
--> statement-breakpoint
ALTER TABLE "locations" ADD CONSTRAINT "locations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "locations_builtin_code_idx" ON "locations" USING btree ("code") WHERE "locations"."org_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "locations_org_code_idx" ON "locations" USING btree ("org_id","code");