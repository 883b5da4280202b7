ALTER TABLE "organizations" ADD COLUMN "active_webhooks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit does not know triggers; keep these when regenerating). How many of an
-- organization's webhooks are active, moved in the transaction of every insert, delete and status
-- or organization change of a webhook, whatever wrote it. An event written while it is 0 is stored
-- already dispatched: nothing would have received it (adapters/resources/events.ts). Increments,
-- not a recount: two transactions adding a webhook to one organization at once both count (a
-- recount in the second would not see the first's row). The function names the table's own
-- schema, so it works whatever the caller's search_path.
-- test/adapters/active-webhooks-triggers.test.ts checks them.
UPDATE organizations SET active_webhooks = (SELECT count(*) FROM webhooks AS w WHERE w.organization_id = organizations.id AND w.status = 'active');--> statement-breakpoint
CREATE FUNCTION casekit_count_active_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP <> 'INSERT' AND OLD.status = 'active' THEN
		EXECUTE format('UPDATE %I.organizations SET active_webhooks = active_webhooks - 1 WHERE id = $1', TG_TABLE_SCHEMA) USING OLD.organization_id;
	END IF;
	IF TG_OP <> 'DELETE' AND NEW.status = 'active' THEN
		EXECUTE format('UPDATE %I.organizations SET active_webhooks = active_webhooks + 1 WHERE id = $1', TG_TABLE_SCHEMA) USING NEW.organization_id;
	END IF;
	RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER webhooks_active_count AFTER INSERT OR DELETE OR UPDATE OF status, organization_id ON webhooks FOR EACH ROW EXECUTE FUNCTION casekit_count_active_webhooks();
