ALTER TABLE "organizations" ADD COLUMN "definitions_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). The definitions
-- version takes a new value in the same transaction as every insert, update or delete of an
-- organization's lifecycles, custom field definitions and case types: the in-memory definitions
-- cache (core/definitions/cache.ts) reuses what it read while the value is unchanged. A random
-- 53-bit value rather than a count: a count moved by a transaction that then rolls back would
-- come back for different definitions, while a drawn value a rolled-back transaction showed never
-- returns. Triggers rather than code, so that no path can forget it (a later repository method, a
-- bulk statement, an operator's hand-made UPDATE). test/conformance/definitions-version-suite.ts
-- checks every column after all migrations. The function names the table's own schema, so it
-- works whatever the caller's search_path.
CREATE FUNCTION casekit_bump_definitions_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		EXECUTE format('UPDATE %I.organizations SET definitions_version = floor(random() * 9007199254740992)::bigint WHERE id = $1', TG_TABLE_SCHEMA) USING OLD.organization_id;
	END IF;
	IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.organization_id IS DISTINCT FROM OLD.organization_id) THEN
		EXECUTE format('UPDATE %I.organizations SET definitions_version = floor(random() * 9007199254740992)::bigint WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.organization_id;
	END IF;
	RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER lifecycles_definitions_version AFTER INSERT OR UPDATE OR DELETE ON lifecycles FOR EACH ROW EXECUTE FUNCTION casekit_bump_definitions_version();--> statement-breakpoint
CREATE TRIGGER custom_fields_definitions_version AFTER INSERT OR UPDATE OR DELETE ON custom_fields FOR EACH ROW EXECUTE FUNCTION casekit_bump_definitions_version();--> statement-breakpoint
CREATE TRIGGER case_types_definitions_version AFTER INSERT OR UPDATE OR DELETE ON case_types FOR EACH ROW EXECUTE FUNCTION casekit_bump_definitions_version();
