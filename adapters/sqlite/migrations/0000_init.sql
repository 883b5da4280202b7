CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`tier` text NOT NULL,
	`scopes` text NOT NULL,
	`tlp_clearance` integer NOT NULL,
	`status` text NOT NULL,
	`expires_at` text,
	`last_used_at` text,
	`start` text NOT NULL,
	`hash` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_unique` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_organization_id_idx` ON `api_keys` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`actor_user_id` text,
	`actor_key_id` text,
	`action` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`changes` text,
	`request_id` text,
	`ip` text,
	`user_agent` text,
	`at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audit_log_organization_id_idx` ON `audit_log` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `cases` (
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
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cases_organization_id_number_unique` ON `cases` (`organization_id`,`number`);--> statement-breakpoint
CREATE INDEX `cases_organization_id_idx` ON `cases` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `cases_organization_id_status_value_idx` ON `cases` (`organization_id`,`status_value`,`id`);--> statement-breakpoint
CREATE INDEX `cases_organization_id_severity_idx` ON `cases` (`organization_id`,`severity`,`id`);--> statement-breakpoint
CREATE INDEX `cases_organization_id_assignee_id_idx` ON `cases` (`organization_id`,`assignee_id`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`payload` text NOT NULL,
	`tlp` integer,
	`bulk_request_id` text,
	`occurred_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_organization_id_idx` ON `events` (`organization_id`,`id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`case_seq` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_name_unique` ON `organizations` (`name`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`tlp_clearance` integer NOT NULL,
	`password_hash` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_organization_id_idx` ON `users` (`organization_id`,`id`);