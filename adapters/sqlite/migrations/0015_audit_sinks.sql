CREATE TABLE `audit_sink_cursors` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`seq` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `audit_sinks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`config` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	`grant_key_id` text,
	`grant_tlp_clearance` integer NOT NULL,
	`grant_scopes` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audit_sinks_organization_id_idx` ON `audit_sinks` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_sinks_status_id_idx` ON `audit_sinks` (`status`,`id`);