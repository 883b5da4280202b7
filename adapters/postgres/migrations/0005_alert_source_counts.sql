CREATE TABLE "alert_source_counts" (
	"organization_id" text NOT NULL,
	"source" text NOT NULL,
	"status_value" text NOT NULL,
	"tlp" integer NOT NULL,
	"bucket" timestamp(3) with time zone NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "alert_source_counts_pk" PRIMARY KEY("organization_id","source","status_value","tlp","bucket")
);
--> statement-breakpoint
CREATE INDEX "alerts_organization_id_created_at_idx" ON "alerts" USING btree ("organization_id","created_at","tlp","status_value","source") WHERE deleted_at IS NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers): every write to "alerts", whatever path makes
-- it, keeps alert_source_counts exact in the writer's own transaction. Only live rows count; a
-- change of a counted column moves the alert from its old counter to its new one; a counter that
-- reaches 0 is deleted (under the row lock its last decrement took, so a concurrent upsert of the
-- same key waits, then inserts afresh). The bucket is created_at cut to the hour in UTC, whatever
-- the session's time zone. The function keeps the search_path it was created with, so its
-- unqualified table resolves to this schema's whoever writes. Any later migration that recreates
-- "alerts" must create the triggers again; test/conformance/alert-metric-migration.test.ts fails
-- if they are missing.
CREATE FUNCTION alert_source_counts_track() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
	remaining integer;
BEGIN
	IF TG_OP <> 'INSERT' THEN
		IF OLD.deleted_at IS NULL THEN
			UPDATE alert_source_counts SET count = count - 1
			WHERE organization_id = OLD.organization_id AND source = OLD.source AND status_value = OLD.status_value
				AND tlp = OLD.tlp AND bucket = date_trunc('hour', OLD.created_at, 'UTC')
			RETURNING count INTO remaining;
			IF remaining = 0 THEN
				DELETE FROM alert_source_counts
				WHERE organization_id = OLD.organization_id AND source = OLD.source AND status_value = OLD.status_value
					AND tlp = OLD.tlp AND bucket = date_trunc('hour', OLD.created_at, 'UTC') AND count = 0;
			END IF;
		END IF;
	END IF;
	IF TG_OP <> 'DELETE' THEN
		IF NEW.deleted_at IS NULL THEN
			INSERT INTO alert_source_counts AS counter (organization_id, source, status_value, tlp, bucket, count)
			VALUES (NEW.organization_id, NEW.source, NEW.status_value, NEW.tlp, date_trunc('hour', NEW.created_at, 'UTC'), 1)
			ON CONFLICT (organization_id, source, status_value, tlp, bucket) DO UPDATE SET count = counter.count + 1;
		END IF;
	END IF;
	RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER alert_source_counts_after_insert AFTER INSERT ON alerts
	FOR EACH ROW WHEN (NEW.deleted_at IS NULL) EXECUTE FUNCTION alert_source_counts_track();--> statement-breakpoint
CREATE TRIGGER alert_source_counts_after_update AFTER UPDATE OF organization_id, source, status_value, tlp, created_at, deleted_at ON alerts
	FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id OR OLD.source IS DISTINCT FROM NEW.source
		OR OLD.status_value IS DISTINCT FROM NEW.status_value OR OLD.tlp IS DISTINCT FROM NEW.tlp
		OR OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
	EXECUTE FUNCTION alert_source_counts_track();--> statement-breakpoint
CREATE TRIGGER alert_source_counts_after_delete AFTER DELETE ON alerts
	FOR EACH ROW WHEN (OLD.deleted_at IS NULL) EXECUTE FUNCTION alert_source_counts_track();--> statement-breakpoint
-- The alerts already stored, counted once. CREATE TRIGGER locked "alerts" against writes until
-- the migration's transaction commits, so none is written between this count and the triggers.
INSERT INTO alert_source_counts (organization_id, source, status_value, tlp, bucket, count)
SELECT organization_id, source, status_value, tlp, date_trunc('hour', created_at, 'UTC'), count(*)
FROM alerts WHERE deleted_at IS NULL
GROUP BY organization_id, source, status_value, tlp, date_trunc('hour', created_at, 'UTC');
