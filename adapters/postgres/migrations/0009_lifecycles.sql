CREATE TABLE "lifecycles" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"entity" text NOT NULL,
	"version" integer NOT NULL,
	"statuses" jsonb NOT NULL,
	"transitions" jsonb NOT NULL,
	"mapping" jsonb NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
CREATE TABLE "status_history" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"entity" text NOT NULL,
	"record_id" text NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"from_category" text,
	"to_category" text,
	"actor_user_id" text,
	"actor_key_id" text,
	"at" timestamp(3) with time zone NOT NULL,
	"reason" text
);
--> statement-breakpoint
ALTER TABLE "lifecycles" ADD CONSTRAINT "lifecycles_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "status_history" ADD CONSTRAINT "status_history_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "lifecycles_organization_id_entity_version_unique" ON "lifecycles" USING btree ("organization_id","entity","version");--> statement-breakpoint
CREATE INDEX "lifecycles_organization_id_entity_idx" ON "lifecycles" USING btree ("organization_id","entity","id");--> statement-breakpoint
CREATE INDEX "status_history_organization_id_record_idx" ON "status_history" USING btree ("organization_id","entity","record_id","id");--> statement-breakpoint
-- Backfill: one history entry per existing record, from nothing to its current status at its creation, by its creator (the built-in lifecycles' categories: no organization had another). The entry's id carries the record's own time-ordered id part, so it sorts first in the record's history.
INSERT INTO "status_history" ("id", "organization_id", "entity", "record_id", "from_status", "to_status", "from_category", "to_category", "actor_user_id", "actor_key_id", "at", "reason") SELECT 'sth_' || split_part("id", '_', 2), "organization_id", 'case', "id", NULL, "status_value", NULL, CASE "status_value" WHEN 'new' THEN 'new' WHEN 'in_progress' THEN 'in_progress' WHEN 'on_hold' THEN 'on_hold' WHEN 'resolved' THEN 'resolved' WHEN 'closed' THEN 'closed' END, "created_by", NULL, "created_at", NULL FROM "cases";
--> statement-breakpoint
INSERT INTO "status_history" ("id", "organization_id", "entity", "record_id", "from_status", "to_status", "from_category", "to_category", "actor_user_id", "actor_key_id", "at", "reason") SELECT 'sth_' || split_part("id", '_', 2), "organization_id", 'alert', "id", NULL, "status_value", NULL, CASE "status_value" WHEN 'new' THEN 'new' WHEN 'acknowledged' THEN 'in_progress' WHEN 'closed' THEN 'closed' WHEN 'imported' THEN 'closed' END, "created_by", NULL, "created_at", NULL FROM "alerts";
--> statement-breakpoint
INSERT INTO "status_history" ("id", "organization_id", "entity", "record_id", "from_status", "to_status", "from_category", "to_category", "actor_user_id", "actor_key_id", "at", "reason") SELECT 'sth_' || split_part("id", '_', 2), "organization_id", 'task', "id", NULL, "status", NULL, CASE "status" WHEN 'waiting' THEN 'new' WHEN 'in_progress' THEN 'in_progress' WHEN 'completed' THEN 'resolved' WHEN 'cancelled' THEN 'closed' END, "created_by", NULL, "created_at", NULL FROM "tasks";
