CREATE TABLE "audit_sink_cursors" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_sinks" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"config" jsonb NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text,
	"grant_key_id" text,
	"grant_tlp_clearance" integer NOT NULL,
	"grant_scopes" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_sink_cursors" ADD CONSTRAINT "audit_sink_cursors_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_sinks" ADD CONSTRAINT "audit_sinks_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_sinks_organization_id_idx" ON "audit_sinks" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "audit_sinks_status_id_idx" ON "audit_sinks" USING btree ("status","id");