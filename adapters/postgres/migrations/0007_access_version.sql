ALTER TABLE "organizations" ADD COLUMN "access_version" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). The access
-- version moves in the same transaction as every write that can change what a key or a user may
-- do: any insert, update or delete of api_keys or users, and any update of an organization's own
-- columns. Only bookkeeping is left out: api_keys.last_used_at and the organization's internal
-- counters (case_seq, the TLP chain head, access_version itself). Triggers rather than code, so
-- that no path can forget it: a repository method added later, a bulk statement, or an operator's
-- hand-made UPDATE during an incident. `UPDATE OF` fires when a listed column is SET, changed or
-- not. test/adapters/access-version-triggers.test.ts checks every column after all migrations.
-- The function names the table's own schema, so it works whatever the caller's search_path.
CREATE FUNCTION casekit_bump_access_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' THEN
		EXECUTE format('UPDATE %I.organizations SET access_version = access_version + 1 WHERE id = $1', TG_TABLE_SCHEMA) USING OLD.organization_id;
	END IF;
	IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.organization_id IS DISTINCT FROM OLD.organization_id) THEN
		EXECUTE format('UPDATE %I.organizations SET access_version = access_version + 1 WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.organization_id;
	END IF;
	RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE FUNCTION casekit_next_access_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.access_version := OLD.access_version + 1;
	RETURN NEW;
END;
$$;--> statement-breakpoint
CREATE TRIGGER api_keys_access_version AFTER INSERT OR DELETE OR UPDATE OF id, organization_id, user_id, name, description, tier, scopes, tlp_clearance, status, expires_at, start, hash, created_at, updated_at, created_by ON api_keys FOR EACH ROW EXECUTE FUNCTION casekit_bump_access_version();--> statement-breakpoint
CREATE TRIGGER users_access_version AFTER INSERT OR UPDATE OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION casekit_bump_access_version();--> statement-breakpoint
CREATE TRIGGER organizations_access_version BEFORE UPDATE OF id, name, policy, created_at, updated_at ON organizations FOR EACH ROW EXECUTE FUNCTION casekit_next_access_version();
