ALTER TABLE "monitors" ADD COLUMN "tls_expires_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "monitors" ADD COLUMN "tls_issuer" text;