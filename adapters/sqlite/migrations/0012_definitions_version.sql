ALTER TABLE `organizations` ADD `definitions_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). The definitions
-- version takes a new value in the same transaction as every insert, update or delete of an
-- organization's lifecycles, custom field definitions and case types: the in-memory definitions
-- cache (core/definitions/cache.ts) reuses what it read while the value is unchanged. A random
-- 53-bit value rather than a count: a count moved by a transaction that then rolls back would
-- come back for different definitions, while a drawn value a rolled-back transaction showed never
-- returns. Triggers rather than code, so that no path can forget it (a later repository method, a
-- bulk statement, an operator's hand-made UPDATE). test/conformance/definitions-version-suite.ts
-- checks every column after all migrations.
CREATE TRIGGER `lifecycles_definitions_version_insert` AFTER INSERT ON `lifecycles`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `lifecycles_definitions_version_update` AFTER UPDATE ON `lifecycles`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id IN (OLD.organization_id, NEW.organization_id);
END;--> statement-breakpoint
CREATE TRIGGER `lifecycles_definitions_version_delete` AFTER DELETE ON `lifecycles`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = OLD.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `custom_fields_definitions_version_insert` AFTER INSERT ON `custom_fields`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `custom_fields_definitions_version_update` AFTER UPDATE ON `custom_fields`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id IN (OLD.organization_id, NEW.organization_id);
END;--> statement-breakpoint
CREATE TRIGGER `custom_fields_definitions_version_delete` AFTER DELETE ON `custom_fields`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = OLD.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `case_types_definitions_version_insert` AFTER INSERT ON `case_types`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `case_types_definitions_version_update` AFTER UPDATE ON `case_types`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id IN (OLD.organization_id, NEW.organization_id);
END;--> statement-breakpoint
CREATE TRIGGER `case_types_definitions_version_delete` AFTER DELETE ON `case_types`
BEGIN
	UPDATE organizations SET definitions_version = random() & 9007199254740991 WHERE id = OLD.organization_id;
END;
