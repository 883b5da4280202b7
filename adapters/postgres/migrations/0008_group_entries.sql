ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_fk";
--> statement-breakpoint
DROP INDEX "events_organization_id_idx";--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "items" jsonb;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "items" jsonb;--> statement-breakpoint
ALTER TABLE "tlp_audit_log" ADD COLUMN "items" jsonb;--> statement-breakpoint
CREATE INDEX "tlp_audit_log_groups_idx" ON "tlp_audit_log" USING btree ("organization_id","id") WHERE items IS NOT NULL;