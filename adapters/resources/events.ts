/**
 * The transactional outbox, declared once: both dialects' tables, rows and SQL come from this
 * declaration, and the port's EventRepository is the generic repository listed newest first. The
 * dispatcher's claim of events to fan out is in deliveries.ts. A group event (a bulk operation:
 * one row listing its records in `items`) is read as one event per record (core/log/groups.ts).
 */
import type { DomainEvent, EventItem } from "../../core/events/types.js";
import { expandEvent, splitItemId } from "../../core/log/groups.js";
import type { StoredEventItems } from "../../core/log/compact-items.js";
import { compactEventItems, compactEventItemsInSteps } from "../../core/log/compact-items.js";
import type { Dialect } from "../declare/dialect.js";
import { CaseKitError } from "../../core/errors.js";
import type { EventRepository } from "../../core/ports/storage.js";
import { id, int, internal, json, nullableJson, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import { groupedPage } from "../shared/grouped-pages.js";
import { breather, groupItemsColumn } from "../shared/json-in-slices.js";

export const eventResource = defineResource({
  table: "events",
  noun: "An event",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    name: text(),
    resourceType: text(),
    resourceId: text(),
    payload: json<Record<string, unknown>>(),
    tlp: int({ nullable: true }),
    bulkRequestId: text({ nullable: true }),
    occurredAt: timestamp(),
    /** A group event's records (core/events/types.ts GroupEvent), by column (core/log/compact-items.ts); null for a single event. */
    items: nullableJson<StoredEventItems>(),
    /** When the webhook dispatcher fanned the event out (claimEvents); null until then. */
    dispatchedAt: internal(timestamp({ nullable: true })),
  },
  // No index by organization: nothing on the request or delivery path lists the outbox (the
  // dispatcher claims through the queue below and reads events by id), so it would only cost
  // every write. EventRepository.list walks the primary key newest first instead.
  indexes: [
    // The dispatcher's queue: only undispatched events are in it, so it stays small however long the outbox grows.
    { name: "events_undispatched_idx", columns: ["id"], where: "dispatched_at IS NULL" },
  ],
});

/** An event row as stored: a single event (items null) or a group event. */
export type StoredEvent = DomainEvent & { items: StoredEventItems | null };

/** Compile-time proof that the declaration stores exactly the core's DomainEvent, and a group's items. */
export const _eventRecordMatches: Same<RecordOf<typeof eventResource>, StoredEvent> = true;

export function eventRepository(events: DeclaredRepository<StoredEvent, FilterValues<typeof eventResource>>, dialect: Dialect): EventRepository {
  const stored = (event: DomainEvent & { items?: readonly EventItem[] }): StoredEvent => ({
    ...event,
    items: event.items ? compactEventItems(event.items, dialect.jsonKeyOrder) : null,
  });
  /** A group event's items compacted and written as JSON in slices (a bulk's 100 000 records), not in one stretch. */
  const storedInSlices = async (event: DomainEvent & { items?: readonly EventItem[] }): Promise<StoredEvent> => {
    if (!event.items) return stored(event);
    const breathe = breather();
    const items = await compactEventItemsInSteps(event.items, dialect.jsonKeyOrder, breathe);
    return { ...event, items: await groupItemsColumn(items, event.items.length) };
  };
  return {
    append: async (event) => events.insert(await storedInSlices(event)),
    async appendMany(batch) {
      // A clash leaves rows unwritten: refusing fails the unit, which then writes none of them.
      if ((await events.insertMany(batch.map(stored))) < batch.length) throw new CaseKitError("conflict", `${eventResource.spec.noun} with this id already exists`);
    },
    list: (organizationId, page) =>
      groupedPage(
        {
          rows: (before, limit) => events.list(organizationId, {}, { limit, order: "desc", after: before }),
          row: (id) => events.findById(organizationId, id),
          expand: expandEvent,
        },
        pageLimit(page),
        page.beforeId,
      ),
    async findRow(organizationId, id) {
      const row = await events.findById(organizationId, id);
      return row ? expandEvent(row) : null;
    },
    async findById(organizationId, id) {
      const item = splitItemId(id);
      const row = await events.findById(organizationId, item ? item.groupId : id);
      if (!row) return null;
      if (!item) return row.items ? null : expandEvent(row)[0]!;
      return row.items ? (expandEvent(row)[item.position] ?? null) : null;
    },
  };
}
