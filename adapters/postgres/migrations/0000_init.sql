CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"tier" text NOT NULL,
	"scopes" jsonb NOT NULL,
	"tlp_clearance" integer NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp(3) with time zone,
	"last_used_at" timestamp(3) with time zone,
	"start" text NOT NULL,
	"hash" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	CONSTRAINT "api_keys_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"actor_user_id" text,
	"actor_key_id" text,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"changes" jsonb,
	"request_id" text,
	"ip" text,
	"user_agent" text,
	"at" timestamp(3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cases" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"number" integer NOT NULL,
	"title" text NOT NULL,
	"severity" integer NOT NULL,
	"description" text,
	"tlp" integer NOT NULL,
	"pap" integer NOT NULL,
	"status_value" text NOT NULL,
	"type_value" text,
	"assignee_id" text,
	"client_id" text,
	"source" text,
	"source_ref" text,
	"tags" jsonb NOT NULL,
	"teams" jsonb NOT NULL,
	"organizations" jsonb NOT NULL,
	"custom_fields" jsonb NOT NULL,
	"closed_at" timestamp(3) with time zone,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"payload" jsonb NOT NULL,
	"tlp" integer,
	"bulk_request_id" text,
	"occurred_at" timestamp(3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"case_seq" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	CONSTRAINT "organizations_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"status" text NOT NULL,
	"tlp_clearance" integer NOT NULL,
	"password_hash" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_organization_id_idx" ON "api_keys" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "audit_log_organization_id_idx" ON "audit_log" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "cases_organization_id_number_unique" ON "cases" USING btree ("organization_id","number");--> statement-breakpoint
CREATE INDEX "cases_organization_id_idx" ON "cases" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "cases_organization_id_status_value_idx" ON "cases" USING btree ("organization_id","status_value","id");--> statement-breakpoint
CREATE INDEX "cases_organization_id_severity_idx" ON "cases" USING btree ("organization_id","severity","id");--> statement-breakpoint
CREATE INDEX "cases_organization_id_assignee_id_idx" ON "cases" USING btree ("organization_id","assignee_id","id");--> statement-breakpoint
CREATE INDEX "cases_tags_idx" ON "cases" USING gin ("tags" jsonb_path_ops);--> statement-breakpoint
CREATE INDEX "events_organization_id_idx" ON "events" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "users_organization_id_idx" ON "users" USING btree ("organization_id","id");