ALTER TABLE "audit_sink_cursors" ADD COLUMN "lease_holder" text;--> statement-breakpoint
ALTER TABLE "audit_sink_cursors" ADD COLUMN "lease_until" timestamp(3) with time zone;