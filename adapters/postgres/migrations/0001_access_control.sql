CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"csrf_hash" text NOT NULL,
	"created_at" timestamp(3) with time zone NOT NULL,
	"expires_at" timestamp(3) with time zone NOT NULL,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "sign_in_throttles" (
	"email" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"window_started_at" timestamp(3) with time zone NOT NULL,
	"blocked_until" timestamp(3) with time zone
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"function" text,
	"tier" text,
	"escalation_team_id" text,
	"email" text,
	"slack_channel" text,
	"teams_channel" text,
	"timezone" text,
	"created_at" timestamp(3) with time zone NOT NULL,
	"updated_at" timestamp(3) with time zone NOT NULL,
	"created_by" text
);
--> statement-breakpoint
CREATE TABLE "tlp_audit_log" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"seq" integer NOT NULL,
	"actor_user_id" text,
	"actor_key_id" text,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"action" text NOT NULL,
	"tlp_before" integer,
	"tlp_after" integer,
	"outcome" text NOT NULL,
	"ip" text,
	"user_agent" text,
	"request_id" text,
	"at" timestamp(3) with time zone NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ALTER COLUMN "id" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "users" ALTER COLUMN "id" SET DATA TYPE text COLLATE "C";--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "policy" jsonb;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "tlp_audit_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "tlp_audit_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tlp_audit_log" ADD CONSTRAINT "tlp_audit_log_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "teams_organization_id_name_unique" ON "teams" USING btree ("organization_id","name");--> statement-breakpoint
CREATE INDEX "teams_organization_id_idx" ON "teams" USING btree ("organization_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tlp_audit_log_organization_id_seq_unique" ON "tlp_audit_log" USING btree ("organization_id","seq");--> statement-breakpoint
CREATE INDEX "tlp_audit_log_organization_id_idx" ON "tlp_audit_log" USING btree ("organization_id","id");--> statement-breakpoint
CREATE INDEX "tlp_audit_log_organization_id_resource_id_idx" ON "tlp_audit_log" USING btree ("organization_id","resource_id","id");--> statement-breakpoint
-- The TLP audit log is append-only: rows are never changed or removed, by casekit or by anyone
-- else with ordinary privileges. (Not modelled by drizzle-kit: keep these when regenerating.)
CREATE FUNCTION tlp_audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'casekit: the TLP audit log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER tlp_audit_log_append_only BEFORE UPDATE OR DELETE ON tlp_audit_log FOR EACH ROW EXECUTE FUNCTION tlp_audit_log_refuse_change();--> statement-breakpoint
CREATE TRIGGER tlp_audit_log_no_truncate BEFORE TRUNCATE ON tlp_audit_log FOR EACH STATEMENT EXECUTE FUNCTION tlp_audit_log_refuse_change();
