CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`severity` integer NOT NULL,
	`tlp` integer NOT NULL,
	`pap` integer NOT NULL,
	`type_value` text,
	`source` text NOT NULL,
	`source_ref` text,
	`status_value` text NOT NULL,
	`assignee_id` text,
	`tags` text NOT NULL,
	`custom_fields` text NOT NULL,
	`event_date` text,
	`occurrences` integer DEFAULT 1 NOT NULL,
	`last_seen_at` text NOT NULL,
	`case_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`deleted_at` text,
	`deleted_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_source_ref_unique` ON `alerts` (`organization_id`,`source`,`source_ref`) WHERE deleted_at IS NULL AND source_ref IS NOT NULL;--> statement-breakpoint
CREATE INDEX `alerts_organization_id_idx` ON `alerts` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_organization_id_status_value_idx` ON `alerts` (`organization_id`,`status_value`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_organization_id_severity_idx` ON `alerts` (`organization_id`,`severity`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_organization_id_assignee_id_idx` ON `alerts` (`organization_id`,`assignee_id`,`id`);--> statement-breakpoint
CREATE INDEX `alerts_organization_id_source_idx` ON `alerts` (`organization_id`,`source`,`deleted_at`,`tlp`,`status_value`,`created_at`);--> statement-breakpoint
CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`parent_type` text NOT NULL,
	`parent_id` text NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`edited_at` text,
	`deleted_at` text,
	`deleted_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `comments_organization_id_parent_idx` ON `comments` (`organization_id`,`parent_type`,`parent_id`,`id`);--> statement-breakpoint
CREATE TABLE `observables` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`case_id` text,
	`alert_id` text,
	`data_type` text NOT NULL,
	`data` text NOT NULL,
	`tlp` integer NOT NULL,
	`pap` integer NOT NULL,
	`ioc` integer NOT NULL,
	`sighted` integer NOT NULL,
	`tags` text NOT NULL,
	`message` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`deleted_at` text,
	`deleted_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`case_id`) REFERENCES `cases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `observables_case_unique` ON `observables` (`case_id`,`data_type`,`data`) WHERE deleted_at IS NULL AND case_id IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `observables_alert_unique` ON `observables` (`alert_id`,`data_type`,`data`) WHERE deleted_at IS NULL AND alert_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `observables_organization_id_idx` ON `observables` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `observables_organization_id_data_idx` ON `observables` (`organization_id`,`data`,`id`);--> statement-breakpoint
CREATE INDEX `observables_organization_id_case_id_idx` ON `observables` (`organization_id`,`case_id`,`id`);--> statement-breakpoint
CREATE INDEX `observables_organization_id_alert_id_idx` ON `observables` (`organization_id`,`alert_id`,`id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`case_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`assignee_id` text,
	`due_date` text,
	`mandatory` integer NOT NULL,
	`tlp` integer NOT NULL,
	`sort_order` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`deleted_at` text,
	`deleted_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`case_id`) REFERENCES `cases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tasks_organization_id_idx` ON `tasks` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_organization_id_case_id_idx` ON `tasks` (`organization_id`,`case_id`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_organization_id_status_idx` ON `tasks` (`organization_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `tasks_organization_id_assignee_id_idx` ON `tasks` (`organization_id`,`assignee_id`,`id`);--> statement-breakpoint
ALTER TABLE `audit_log` ADD `bulk_request_id` text;