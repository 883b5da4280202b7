CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`requested_at` text NOT NULL,
	`duration_ms` real NOT NULL,
	`response_status` integer,
	`response_body` text,
	`error_class` text,
	`next_attempt_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_id_idx` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
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
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_webhook_id_event_id_unique` ON `webhook_deliveries` (`webhook_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_next_attempt_at_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_organization_id_webhook_id_idx` ON `webhook_deliveries` (`organization_id`,`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_completed_at_idx` ON `webhook_deliveries` (`completed_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`method` text NOT NULL,
	`auth_type` text NOT NULL,
	`auth_config` text NOT NULL,
	`headers` text NOT NULL,
	`filters` text NOT NULL,
	`retry_delay_ms` integer NOT NULL,
	`timeout_ms` integer NOT NULL,
	`max_retries` integer NOT NULL,
	`tags` text NOT NULL,
	`environment` text NOT NULL,
	`status` text NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`secret_start` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhooks_organization_id_idx` ON `webhooks` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhooks_organization_id_status_idx` ON `webhooks` (`organization_id`,`status`);--> statement-breakpoint
ALTER TABLE `events` ADD `dispatched_at` text;--> statement-breakpoint
-- Events written before webhooks existed had no subscription to reach: mark them fanned out.
UPDATE `events` SET `dispatched_at` = `occurred_at`;--> statement-breakpoint
CREATE INDEX `events_undispatched_idx` ON `events` (`id`) WHERE dispatched_at IS NULL;