CREATE TABLE "alerts" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"severity" integer NOT NULL,
	"tlp" integer NOT NULL,
	"pap" integer NOT NULL,
	"type_value" text,
	"source" text NOT NULL,
	"source_ref" text,
	"status_value" text NOT NULL,
	"assignee_id" text,
	"tags" jsonb NOT NULL,
	"custom_fields" jsonb NOT NULL,
	"event_date" timestamp(3) with time zone,
	"occurrences" integer DEFAULT 1 NOT NULL,
	"last_seen_at" timestamp(3) with time zone NOT NULL,
	"case_id" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	"deleted_at" timestamp(3) with time zone,
	"deleted_by" text
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"parent_type" text NOT NULL,
	"parent_id" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	"edited_at" timestamp(3) with time zone,
	"deleted_at" timestamp(3) with time zone,
	"deleted_by" text
);
--> statement-breakpoint
CREATE TABLE "observables" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"case_id" text,
	"alert_id" text,
	"data_type" text NOT NULL,
	"data" text NOT NULL,
	"tlp" integer NOT NULL,
	"pap" integer NOT NULL,
	"ioc" boolean NOT NULL,
	"sighted" boolean NOT NULL,
	"tags" jsonb NOT NULL,
	"message" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	"deleted_at" timestamp(3) with time zone,
	"deleted_by" text
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"case_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"assignee_id" text,
	"due_date" timestamp(3) with time zone,
	"mandatory" boolean NOT NULL,
	"tlp" integer NOT NULL,
	"sort_order" integer NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	"deleted_at" timestamp(3) with time zone,
	"deleted_by" text
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "bulk_request_id" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observables" ADD CONSTRAINT "observables_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observables" ADD CONSTRAINT "observables_case_id_fk" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observables" ADD CONSTRAINT "observables_alert_id_fk" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_case_id_fk" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_source_ref_unique" ON "alerts" USING btree ("organization_id","source","source_ref") WHERE deleted_at IS NULL AND source_ref IS NOT NULL;--> statement-breakpoint
CREATE INDEX "alerts_organization_id_idx" ON "alerts" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "alerts_organization_id_status_value_idx" ON "alerts" USING btree ("organization_id","status_value","id");--> statement-breakpoint
CREATE INDEX "alerts_organization_id_severity_idx" ON "alerts" USING btree ("organization_id","severity","id");--> statement-breakpoint
CREATE INDEX "alerts_organization_id_assignee_id_idx" ON "alerts" USING btree ("organization_id","assignee_id","id");--> statement-breakpoint
CREATE INDEX "alerts_tags_idx" ON "alerts" USING gin ("tags" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "alerts_organization_id_source_idx" ON "alerts" USING btree ("organization_id","source","deleted_at","tlp","status_value","created_at");--> statement-breakpoint
CREATE INDEX "comments_organization_id_parent_idx" ON "comments" USING btree ("organization_id","parent_type","parent_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "observables_case_unique" ON "observables" USING btree ("case_id","data_type","data") WHERE deleted_at IS NULL AND case_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "observables_alert_unique" ON "observables" USING btree ("alert_id","data_type","data") WHERE deleted_at IS NULL AND alert_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "observables_organization_id_idx" ON "observables" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "observables_organization_id_data_idx" ON "observables" USING btree ("organization_id","data","id");--> statement-breakpoint
CREATE INDEX "observables_organization_id_case_id_idx" ON "observables" USING btree ("organization_id","case_id","id");--> statement-breakpoint
CREATE INDEX "observables_organization_id_alert_id_idx" ON "observables" USING btree ("organization_id","alert_id","id");--> statement-breakpoint
CREATE INDEX "tasks_organization_id_idx" ON "tasks" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "tasks_organization_id_case_id_idx" ON "tasks" USING btree ("organization_id","case_id","id");--> statement-breakpoint
CREATE INDEX "tasks_organization_id_status_idx" ON "tasks" USING btree ("organization_id","status","id");--> statement-breakpoint
CREATE INDEX "tasks_organization_id_assignee_id_idx" ON "tasks" USING btree ("organization_id","assignee_id","id");