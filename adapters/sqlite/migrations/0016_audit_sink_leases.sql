ALTER TABLE `audit_sink_cursors` ADD `lease_holder` text;--> statement-breakpoint
ALTER TABLE `audit_sink_cursors` ADD `lease_until` text;