CREATE TABLE `case_types` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`description` text,
	`default_tlp` integer,
	`default_pap` integer,
	`custom_fields` text NOT NULL,
	`lifecycle` text,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `case_types_organization_id_key_unique` ON `case_types` (`organization_id`,`key`);--> statement-breakpoint
CREATE INDEX `case_types_organization_id_idx` ON `case_types` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `custom_field_values` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`entity` text NOT NULL,
	`record_id` text NOT NULL,
	`lookup` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `custom_field_values_lookup_idx` ON `custom_field_values` (`lookup`,`record_id`);--> statement-breakpoint
CREATE INDEX `custom_field_values_record_idx` ON `custom_field_values` (`organization_id`,`record_id`);--> statement-breakpoint
CREATE TABLE `custom_fields` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`description` text,
	`scopes` text NOT NULL,
	`type` text NOT NULL,
	`options` text NOT NULL,
	`bounds` text NOT NULL,
	`required` text NOT NULL,
	`default_value` text,
	`tlp_floor` integer,
	`filterable` integer NOT NULL,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_fields_organization_id_key_unique` ON `custom_fields` (`organization_id`,`key`);--> statement-breakpoint
CREATE INDEX `custom_fields_organization_id_idx` ON `custom_fields` (`organization_id`,`id`);--> statement-breakpoint
-- Backfill: the cases' existing custom field values, as the case repository indexes them (adapters/resources/custom-field-values.ts).
INSERT INTO `custom_field_values` (`id`, `organization_id`, `entity`, `record_id`, `lookup`)
SELECT DISTINCT m.record_id || '.' || m.key || '=' || m.text, m.org, 'case', m.record_id, m.org || '|case|' || m.key || '|' || m.text FROM (
	SELECT r.id AS record_id, r.organization_id AS org, f.key AS key,
		CASE f.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'integer' THEN CAST(f.value AS TEXT) WHEN 'real' THEN CAST(f.value AS TEXT) WHEN 'text' THEN CASE WHEN length(f.value) <= 200 THEN f.value END END AS text
	FROM `cases` r, json_each(r.custom_fields) f WHERE f.type <> 'array'
	UNION ALL
	SELECT r.id, r.organization_id, f.key,
		CASE e.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'integer' THEN CAST(e.value AS TEXT) WHEN 'real' THEN CAST(e.value AS TEXT) WHEN 'text' THEN CASE WHEN length(e.value) <= 200 THEN e.value END END
	FROM `cases` r, json_each(r.custom_fields) f, json_each(f.value) e WHERE f.type = 'array'
) m WHERE m.text IS NOT NULL;
--> statement-breakpoint
-- Backfill: the alerts' existing custom field values, as the alert repository indexes them (adapters/resources/custom-field-values.ts).
INSERT INTO `custom_field_values` (`id`, `organization_id`, `entity`, `record_id`, `lookup`)
SELECT DISTINCT m.record_id || '.' || m.key || '=' || m.text, m.org, 'alert', m.record_id, m.org || '|alert|' || m.key || '|' || m.text FROM (
	SELECT r.id AS record_id, r.organization_id AS org, f.key AS key,
		CASE f.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'integer' THEN CAST(f.value AS TEXT) WHEN 'real' THEN CAST(f.value AS TEXT) WHEN 'text' THEN CASE WHEN length(f.value) <= 200 THEN f.value END END AS text
	FROM `alerts` r, json_each(r.custom_fields) f WHERE f.type <> 'array'
	UNION ALL
	SELECT r.id, r.organization_id, f.key,
		CASE e.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'integer' THEN CAST(e.value AS TEXT) WHEN 'real' THEN CAST(e.value AS TEXT) WHEN 'text' THEN CASE WHEN length(e.value) <= 200 THEN e.value END END
	FROM `alerts` r, json_each(r.custom_fields) f, json_each(f.value) e WHERE f.type = 'array'
) m WHERE m.text IS NOT NULL;
