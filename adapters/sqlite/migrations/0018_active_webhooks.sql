ALTER TABLE `organizations` ADD `active_webhooks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). How many of an
-- organization's webhooks are active, moved in the transaction of every insert, delete and status
-- or organization change of a webhook, whatever wrote it. An event written while it is 0 is stored
-- already dispatched: nothing would have received it (adapters/resources/events.ts). Increments,
-- not a recount, as on PostgreSQL. test/adapters/active-webhooks-triggers.test.ts checks them.
UPDATE organizations SET active_webhooks = (SELECT count(*) FROM webhooks AS w WHERE w.organization_id = organizations.id AND w.status = 'active');--> statement-breakpoint
CREATE TRIGGER `webhooks_active_insert` AFTER INSERT ON `webhooks` WHEN NEW.status = 'active'
BEGIN
	UPDATE organizations SET active_webhooks = active_webhooks + 1 WHERE id = NEW.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `webhooks_active_delete` AFTER DELETE ON `webhooks` WHEN OLD.status = 'active'
BEGIN
	UPDATE organizations SET active_webhooks = active_webhooks - 1 WHERE id = OLD.organization_id;
END;--> statement-breakpoint
CREATE TRIGGER `webhooks_active_update` AFTER UPDATE OF status, organization_id ON `webhooks`
BEGIN
	UPDATE organizations SET active_webhooks = active_webhooks - 1 WHERE id = OLD.organization_id AND OLD.status = 'active';
	UPDATE organizations SET active_webhooks = active_webhooks + 1 WHERE id = NEW.organization_id AND NEW.status = 'active';
END;
