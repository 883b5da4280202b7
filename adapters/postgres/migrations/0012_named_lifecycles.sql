DROP INDEX "lifecycles_organization_id_entity_version_unique";--> statement-breakpoint
DROP INDEX "lifecycles_organization_id_entity_idx";--> statement-breakpoint
ALTER TABLE "case_types" ADD COLUMN "default_severity" integer;--> statement-breakpoint
ALTER TABLE "lifecycles" ADD COLUMN "key" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "lifecycles_organization_id_entity_key_version_unique" ON "lifecycles" USING btree ("organization_id","entity","key","version");--> statement-breakpoint
CREATE INDEX "lifecycles_organization_id_entity_key_idx" ON "lifecycles" USING btree ("organization_id","entity","key","id");--> statement-breakpoint
-- Until now a case type's lifecycle was an opaque key no lifecycle answered to, and every case followed the default lifecycle. Now the key names a named case lifecycle, and none exists yet: keeping the old keys would let a later publication under one of them silently move those cases onto statuses they are not in. Cleared, so every case keeps the lifecycle it follows today.
UPDATE "case_types" SET "lifecycle" = NULL WHERE "lifecycle" IS NOT NULL;
