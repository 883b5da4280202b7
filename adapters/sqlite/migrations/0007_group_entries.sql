PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_name` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at` text,
	`lease_until` text,
	`last_response_status` integer,
	`last_error_class` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_webhook_deliveries`("id", "organization_id", "webhook_id", "event_id", "event_name", "status", "attempts", "next_attempt_at", "lease_until", "last_response_status", "last_error_class", "created_at", "updated_at", "completed_at") SELECT "id", "organization_id", "webhook_id", "event_id", "event_name", "status", "attempts", "next_attempt_at", "lease_until", "last_response_status", "last_error_class", "created_at", "updated_at", "completed_at" FROM `webhook_deliveries`;--> statement-breakpoint
DROP TABLE `webhook_deliveries`;--> statement-breakpoint
ALTER TABLE `__new_webhook_deliveries` RENAME TO `webhook_deliveries`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_webhook_id_event_id_unique` ON `webhook_deliveries` (`webhook_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_next_attempt_at_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_organization_id_webhook_id_idx` ON `webhook_deliveries` (`organization_id`,`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_completed_at_idx` ON `webhook_deliveries` (`completed_at`);--> statement-breakpoint
DROP INDEX `events_organization_id_idx`;--> statement-breakpoint
ALTER TABLE `events` ADD `items` text;--> statement-breakpoint
ALTER TABLE `audit_log` ADD `items` text;--> statement-breakpoint
ALTER TABLE `tlp_audit_log` ADD `items` text;--> statement-breakpoint
CREATE INDEX `tlp_audit_log_groups_idx` ON `tlp_audit_log` (`organization_id`,`id`) WHERE items IS NOT NULL;