-- cases gains record_json, the record's JSON text, which SQLite computes on every write (a STORED
-- generated column). SQLite cannot add a STORED column to a table, so the table is rebuilt as its
-- documented procedure does (https://www.sqlite.org/lang_altertable.html, "other kinds of table
-- schema changes"): the storage turns foreign keys off around its migrations and checks them after.
CREATE TABLE `__new_cases` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`number` integer NOT NULL,
	`title` text NOT NULL,
	`severity` integer NOT NULL,
	`description` text,
	`tlp` integer NOT NULL,
	`pap` integer NOT NULL,
	`status_value` text NOT NULL,
	`type_value` text,
	`assignee_id` text,
	`client_id` text,
	`source` text,
	`source_ref` text,
	`tags` text NOT NULL,
	`teams` text NOT NULL,
	`organizations` text NOT NULL,
	`custom_fields` text NOT NULL,
	`closed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`record_json` text GENERATED ALWAYS AS (json_object('id', id, 'organizationId', organization_id, 'number', number, 'title', title, 'severity', severity, 'description', description, 'tlp', tlp, 'pap', pap, 'statusValue', status_value, 'typeValue', type_value, 'assigneeId', assignee_id, 'clientId', client_id, 'source', source, 'sourceRef', source_ref, 'tags', json(tags), 'teams', json(teams), 'organizations', json(organizations), 'customFields', json(custom_fields), 'closedAt', closed_at, 'createdAt', created_at, 'updatedAt', updated_at, 'createdBy', created_by)) STORED NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_cases` (`id`, `organization_id`, `number`, `title`, `severity`, `description`, `tlp`, `pap`, `status_value`, `type_value`, `assignee_id`, `client_id`, `source`, `source_ref`, `tags`, `teams`, `organizations`, `custom_fields`, `closed_at`, `created_at`, `updated_at`, `created_by`) SELECT `id`, `organization_id`, `number`, `title`, `severity`, `description`, `tlp`, `pap`, `status_value`, `type_value`, `assignee_id`, `client_id`, `source`, `source_ref`, `tags`, `teams`, `organizations`, `custom_fields`, `closed_at`, `created_at`, `updated_at`, `created_by` FROM `cases`;
--> statement-breakpoint
DROP TABLE `cases`;
--> statement-breakpoint
ALTER TABLE `__new_cases` RENAME TO `cases`;
--> statement-breakpoint
CREATE UNIQUE INDEX `cases_organization_id_number_unique` ON `cases` (`organization_id`,`number`);
--> statement-breakpoint
CREATE INDEX `cases_organization_id_idx` ON `cases` (`organization_id`,`id`);
--> statement-breakpoint
CREATE INDEX `cases_organization_id_status_value_idx` ON `cases` (`organization_id`,`status_value`,`id`);
--> statement-breakpoint
CREATE INDEX `cases_organization_id_severity_idx` ON `cases` (`organization_id`,`severity`,`id`);
--> statement-breakpoint
CREATE INDEX `cases_organization_id_assignee_id_idx` ON `cases` (`organization_id`,`assignee_id`,`id`);
