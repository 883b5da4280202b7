ALTER TABLE `organizations` ADD `access_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). The access
-- version moves in the same transaction as every write that can change what a key or a user may
-- do: any insert, update or delete of api_keys or users, and any update of an organization's own
-- columns. Only bookkeeping is left out: api_keys.last_used_at and the organization's internal
-- counters (case_seq, the TLP chain head, access_version itself). Triggers rather than code, so
-- that no path can forget it: a repository method added later, a bulk statement, or an operator's
-- hand-made UPDATE during an incident. `UPDATE OF` fires when a listed column is SET, changed or
-- not. A migration that rebuilds one of these tables drops its triggers and must create them
-- again: test/adapters/access-version-triggers.test.ts checks every column after all migrations.
CREATE TRIGGER `api_keys_access_version_insert` AFTER INSERT ON `api_keys`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `api_keys_access_version_update` AFTER UPDATE OF id, organization_id, user_id, name, description, tier, scopes, tlp_clearance, status, expires_at, start, hash, created_at, updated_at, created_by ON `api_keys`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id IN (OLD.organization_id, NEW.organization_id);
END;--> statement-breakpoint
CREATE TRIGGER `api_keys_access_version_delete` AFTER DELETE ON `api_keys`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id = OLD.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `users_access_version_insert` AFTER INSERT ON `users`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `users_access_version_update` AFTER UPDATE ON `users`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id IN (OLD.organization_id, NEW.organization_id);
END;--> statement-breakpoint
CREATE TRIGGER `users_access_version_delete` AFTER DELETE ON `users`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id = OLD.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `organizations_access_version` AFTER UPDATE OF id, name, policy, created_at, updated_at ON `organizations`
BEGIN
	UPDATE organizations SET access_version = access_version + 1 WHERE id = NEW.id;
END;
