CREATE TABLE "sign_in_attempts" (
	"key" text PRIMARY KEY NOT NULL,
	"attempts" integer NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_attempts_expires_idx" ON "sign_in_attempts" USING btree ("expires_at");