ALTER TABLE `observables` ADD `custom_fields` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `custom_fields` text DEFAULT '{}' NOT NULL;