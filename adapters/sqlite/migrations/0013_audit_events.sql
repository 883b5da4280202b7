CREATE TABLE `audit_checkpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`seq` integer NOT NULL,
	`hash` text NOT NULL,
	`at` text NOT NULL,
	`signature` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_checkpoints_organization_id_seq_unique` ON `audit_checkpoints` (`organization_id`,`seq`);--> statement-breakpoint
DROP INDEX `audit_log_organization_id_idx`;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `last_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `actor_type` text DEFAULT 'user' NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `case_id` text;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `outcome` text DEFAULT 'success' NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `tlp` integer;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `prev_hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `audit_log_case_idx` ON `audit_log` (`organization_id`,`case_id`,`seq`) WHERE case_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `audit_log_mixed_groups_idx` ON `audit_log` (`organization_id`,`seq`) WHERE items IS NOT NULL AND case_id IS NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `audit_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `audit_hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `audit_legacy_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit knows neither backfills nor triggers; keep these when regenerating).
-- Rows written before audit events enter the chain as legacy rows: positions assigned here in
-- the order they were written (ids sort by time), a group taking one per record, but no hash
-- (SQL cannot compute the core's); organizations.audit_legacy_seq records where they end, and
-- verification starts after it (core/audit/service.ts). Must run before the unique indexes.
UPDATE `audit_log` SET `actor_type` = CASE WHEN `actor_key_id` IS NOT NULL THEN 'apiKey' ELSE 'user' END;--> statement-breakpoint
UPDATE `audit_log` SET `seq` = numbered.last_seq - numbered.n + 1, `last_seq` = numbered.last_seq
FROM (
	SELECT id, n, SUM(n) OVER (PARTITION BY organization_id ORDER BY id ROWS UNBOUNDED PRECEDING) AS last_seq
	FROM (
		SELECT id, organization_id,
			MAX(1, CASE WHEN items IS NULL THEN 1 WHEN json_type(items) = 'array' THEN json_array_length(items) ELSE COALESCE(json_extract(items, '$.count'), 1) END) AS n
		FROM `audit_log`
	)
) AS numbered
WHERE numbered.id = `audit_log`.id;--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_organization_id_seq_unique` ON `audit_log` (`organization_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_organization_id_last_seq_unique` ON `audit_log` (`organization_id`,`last_seq`);--> statement-breakpoint
UPDATE `organizations` SET
	`audit_seq` = COALESCE((SELECT MAX(`last_seq`) FROM `audit_log` WHERE `organization_id` = `organizations`.`id`), 0),
	`audit_legacy_seq` = COALESCE((SELECT MAX(`last_seq`) FROM `audit_log` WHERE `organization_id` = `organizations`.`id`), 0);--> statement-breakpoint
-- Each legacy event's case, where its record names one (a case; a task's, an observable's, a comment's).
UPDATE `audit_log` SET `case_id` = `resource_id` WHERE `resource_type` = 'case' AND `items` IS NULL;--> statement-breakpoint
UPDATE `audit_log` SET `case_id` = (SELECT `case_id` FROM `tasks` WHERE `tasks`.`id` = `audit_log`.`resource_id`) WHERE `resource_type` = 'task' AND `items` IS NULL;--> statement-breakpoint
UPDATE `audit_log` SET `case_id` = (SELECT `case_id` FROM `observables` WHERE `observables`.`id` = `audit_log`.`resource_id`) WHERE `resource_type` = 'observable' AND `items` IS NULL;--> statement-breakpoint
UPDATE `audit_log` SET `case_id` = (
	SELECT CASE c.`parent_type` WHEN 'case' THEN c.`parent_id` WHEN 'task' THEN (SELECT t.`case_id` FROM `tasks` AS t WHERE t.`id` = c.`parent_id`) END
	FROM `comments` AS c WHERE c.`id` = `audit_log`.`resource_id`
) WHERE `resource_type` = 'comment' AND `items` IS NULL;--> statement-breakpoint
-- Legacy events of TLP-marked records never recorded the marking: read as the highest (RED, 4),
-- so their values show only to readers cleared for anything.
UPDATE `audit_log` SET `tlp` = 4 WHERE `resource_type` IN ('case', 'alert', 'task', 'comment', 'observable');--> statement-breakpoint
-- Append-only: no event is ever changed; one is deleted only behind the organization's latest
-- signed checkpoint (retention). Checkpoints are never changed or deleted.
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log`
BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only: events cannot be changed');
END;--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log`
WHEN OLD.`last_seq` > COALESCE((SELECT MAX(`seq`) FROM `audit_checkpoints` WHERE `organization_id` = OLD.`organization_id`), 0)
BEGIN
	SELECT RAISE(ABORT, 'audit_log is append-only: only events behind a checkpoint can be deleted');
END;--> statement-breakpoint
CREATE TRIGGER `audit_checkpoints_no_update` BEFORE UPDATE ON `audit_checkpoints`
BEGIN
	SELECT RAISE(ABORT, 'audit_checkpoints is append-only: checkpoints cannot be changed');
END;--> statement-breakpoint
CREATE TRIGGER `audit_checkpoints_no_delete` BEFORE DELETE ON `audit_checkpoints`
BEGIN
	SELECT RAISE(ABORT, 'audit_checkpoints is append-only: checkpoints cannot be deleted');
END;
