CREATE TABLE "audit_checkpoints" (
	"id" text COLLATE "C" PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"seq" integer NOT NULL,
	"hash" text NOT NULL,
	"at" timestamp(3) with time zone NOT NULL,
	"signature" text NOT NULL
);
--> statement-breakpoint
DROP INDEX "audit_log_organization_id_idx";--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "last_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_type" text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "case_id" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "outcome" text DEFAULT 'success' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "tlp" integer;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "prev_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "audit_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "audit_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "audit_legacy_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_checkpoints" ADD CONSTRAINT "audit_checkpoints_organization_id_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_checkpoints_organization_id_seq_unique" ON "audit_checkpoints" USING btree ("organization_id","seq");--> statement-breakpoint
CREATE INDEX "audit_log_case_idx" ON "audit_log" USING btree ("organization_id","case_id","seq") WHERE case_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "audit_log_mixed_groups_idx" ON "audit_log" USING btree ("organization_id","seq") WHERE items IS NOT NULL AND case_id IS NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit knows neither backfills nor triggers; keep these when regenerating).
-- Rows written before audit events enter the chain as legacy rows: positions assigned here in
-- the order they were written (ids sort by time), a group taking one per record, but no hash
-- (SQL cannot compute the core's); organizations.audit_legacy_seq records where they end, and
-- verification starts after it (core/audit/service.ts). Must run before the unique indexes.
UPDATE "audit_log" SET "actor_type" = CASE WHEN "actor_key_id" IS NOT NULL THEN 'apiKey' ELSE 'user' END;--> statement-breakpoint
UPDATE "audit_log" SET "seq" = numbered.last_seq - numbered.n + 1, "last_seq" = numbered.last_seq
FROM (
	SELECT id, n, SUM(n) OVER (PARTITION BY organization_id ORDER BY id ROWS UNBOUNDED PRECEDING) AS last_seq
	FROM (
		SELECT id, organization_id,
			GREATEST(1, CASE WHEN items IS NULL THEN 1 WHEN jsonb_typeof(items) = 'array' THEN jsonb_array_length(items) ELSE COALESCE((items->>'count')::integer, 1) END) AS n
		FROM "audit_log"
	) AS counted
) AS numbered
WHERE numbered.id = "audit_log".id;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_organization_id_seq_unique" ON "audit_log" USING btree ("organization_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_organization_id_last_seq_unique" ON "audit_log" USING btree ("organization_id","last_seq");--> statement-breakpoint
UPDATE "organizations" SET
	"audit_seq" = COALESCE((SELECT MAX("last_seq") FROM "audit_log" WHERE "organization_id" = organizations.id), 0),
	"audit_legacy_seq" = COALESCE((SELECT MAX("last_seq") FROM "audit_log" WHERE "organization_id" = organizations.id), 0);--> statement-breakpoint
-- Each legacy event's case, where its record names one (a case; a task's, an observable's, a comment's).
UPDATE "audit_log" SET "case_id" = "resource_id" WHERE "resource_type" = 'case' AND "items" IS NULL;--> statement-breakpoint
UPDATE "audit_log" SET "case_id" = (SELECT "case_id" FROM "tasks" WHERE tasks.id = audit_log.resource_id) WHERE "resource_type" = 'task' AND "items" IS NULL;--> statement-breakpoint
UPDATE "audit_log" SET "case_id" = (SELECT "case_id" FROM "observables" WHERE observables.id = audit_log.resource_id) WHERE "resource_type" = 'observable' AND "items" IS NULL;--> statement-breakpoint
UPDATE "audit_log" SET "case_id" = (
	SELECT CASE c."parent_type" WHEN 'case' THEN c."parent_id" WHEN 'task' THEN (SELECT t."case_id" FROM "tasks" AS t WHERE t."id" = c."parent_id") END
	FROM "comments" AS c WHERE c."id" = audit_log.resource_id
) WHERE "resource_type" = 'comment' AND "items" IS NULL;--> statement-breakpoint
-- Legacy events of TLP-marked records never recorded the marking: read as the highest (RED, 4),
-- so their values show only to readers cleared for anything.
UPDATE "audit_log" SET "tlp" = 4 WHERE "resource_type" IN ('case', 'alert', 'task', 'comment', 'observable');--> statement-breakpoint
-- Append-only: no event is ever changed; one is deleted only behind the organization's latest
-- signed checkpoint (retention). Checkpoints are never changed or deleted. The checkpoint table
-- is named in the trigger's own schema (as the access-version triggers do).
CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	behind integer;
BEGIN
	IF TG_OP = 'DELETE' THEN
		EXECUTE format('SELECT MAX(seq) FROM %I.audit_checkpoints WHERE organization_id = $1', TG_TABLE_SCHEMA) INTO behind USING OLD.organization_id;
		IF behind IS NOT NULL AND OLD.last_seq <= behind THEN
			RETURN OLD;
		END IF;
	END IF;
	RAISE EXCEPTION 'casekit: the audit log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();--> statement-breakpoint
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();--> statement-breakpoint
CREATE FUNCTION audit_checkpoints_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'casekit: audit checkpoints are append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_append_only BEFORE UPDATE OR DELETE ON audit_checkpoints FOR EACH ROW EXECUTE FUNCTION audit_checkpoints_refuse_change();--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints FOR EACH STATEMENT EXECUTE FUNCTION audit_checkpoints_refuse_change();
