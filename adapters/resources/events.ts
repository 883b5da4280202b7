/**
 * The transactional outbox, declared once: both dialects' tables, rows and SQL come from this
 * declaration, and the port's EventRepository is the generic repository listed newest first. The
 * dispatcher's claim of events to fan out is in deliveries.ts. A group event (a bulk operation:
 * one row listing its records in `items`, by column, in chunk rows when many:
 * shared/group-items.ts) is read as one event per record (core/log/groups.ts).
 */
import type { DomainEvent, EventItem } from "../../core/events/types.js";
import type { ChunkedItems } from "../../core/log/groups.js";
import { expandEvent, itemId, splitItemId } from "../../core/log/groups.js";
import type { StoredEventItems } from "../../core/log/compact-items.js";
import { compactEventItems, eventItemsOf } from "../../core/log/compact-items.js";
import type { Dialect } from "../declare/dialect.js";
import { CaseKitError } from "../../core/errors.js";
import type { EventRepository } from "../../core/ports/storage.js";
import { id, int, json, nullableJson, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import { groupedPage } from "../shared/grouped-pages.js";
import type { GroupItems, ItemsCodec } from "../shared/group-items.js";
import { eachInTurn, StoredGroupItems } from "../shared/group-items.js";

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
    /**
     * A group event's records (core/events/types.ts GroupEvent), by column (core/log/compact-items.ts),
     * or the marker of their chunk rows (so the claim's update of this row never rewrites them); null for a single event.
     */
    items: nullableJson<StoredEventItems | ChunkedItems>(),
    /**
     * When the webhook dispatcher fanned the event out (claimEvents); null until then. An event
     * written where no webhook of its organization is active is written with its own time here:
     * there is nothing to fan out, so it never enters the dispatcher's queue. The row's, not the
     * event's: reads leave it out.
     */
    dispatchedAt: timestamp({ nullable: true }),
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
export type StoredEvent = DomainEvent & { items: StoredEventItems | ChunkedItems | null; dispatchedAt: string | null };

/**
 * An event's members with `items`, member by member: what a row holds without its own
 * bookkeeping (`dispatchedAt`), and what a write starts from. One per event written or read; V8
 * adds members to a spread's copy slowly (README "Objects on hot paths").
 */
export function eventWithItems<I>(event: DomainEvent, items: I): DomainEvent & { items: I } {
  return {
    id: event.id,
    organizationId: event.organizationId,
    name: event.name,
    resourceType: event.resourceType,
    resourceId: event.resourceId,
    payload: event.payload,
    tlp: event.tlp,
    bulkRequestId: event.bulkRequestId,
    occurredAt: event.occurredAt,
    items,
  };
}

/** How a group event's items (or one chunk of them) are stored: by column, keys in the order the database gives them back. */
export const eventItemsCodec = (dialect: Dialect): ItemsCodec<EventItem> => ({
  encode: (items) => compactEventItems(items, dialect.jsonKeyOrder),
  decode: (stored) => eventItemsOf(stored as StoredEventItems),
});

/** Compile-time proof that the declaration stores exactly the core's DomainEvent, and a group's items. */
export const _eventRecordMatches: Same<RecordOf<typeof eventResource>, StoredEvent> = true;

/**
 * `unsubscribed` says whether an event of an organization written now certainly reaches no
 * webhook (organization-counters.ts): such an event is written already dispatched.
 */
export function eventRepository(
  events: DeclaredRepository<StoredEvent, FilterValues<typeof eventResource>>,
  groups: GroupItems,
  dialect: Dialect,
  unsubscribed: (organizationId: string) => boolean,
): EventRepository {
  const codec = eventItemsCodec(dialect);
  /** The row of an event with its stored items: dispatched already when no subscription can reach it. */
  const rowOf = (event: DomainEvent, items: StoredEvent["items"]): StoredEvent =>
    Object.assign(eventWithItems(event, items), { dispatchedAt: unsubscribed(event.organizationId) ? event.occurredAt : null });
  // A single event's row is made in one go, after its items (see audit.ts toRow).
  const stored = async (event: DomainEvent & { items?: readonly EventItem[] }): Promise<StoredEvent> =>
    rowOf(event, event.items ? ((await groups.store("events", event.organizationId, event.id, event.items, codec)) as StoredEvent["items"]) : null);
  /** The row with its group's items read back (from its chunk rows when there are). */
  const readable = async (row: StoredEvent): Promise<DomainEvent & { items: EventItem[] | null }> =>
    eventWithItems(row, row.items === null ? null : await groups.load("events", row.organizationId, row.id, row.items, codec));
  return {
    append: async (event) => events.insert(await stored(event)),
    groupItems: (organizationId, id) => groups.writer("events", organizationId, id, codec),
    async appendGroup(event, items) {
      // Only this storage's writer knows where the items went.
      if (!(items instanceof StoredGroupItems) || items.log !== "events" || items.organizationId !== event.organizationId || items.groupId !== event.id) throw new Error("casekit: appendGroup takes the writer groupItems gave for this event");
      await events.insert(rowOf(event, (await items.finish()) as StoredEvent["items"]));
    },
    async appendMany(batch) {
      const rows: StoredEvent[] = [];
      for (const event of batch) rows.push(await stored(event));
      // A clash leaves rows unwritten: refusing fails the unit, which then writes none of them.
      if ((await events.insertMany(rows)) < batch.length) throw new CaseKitError("conflict", `${eventResource.spec.noun} with this id already exists`);
    },
    list: (organizationId, page) =>
      groupedPage(
        {
          rows: async (before, limit) => eachInTurn(await events.list(organizationId, {}, { limit, order: "desc", after: before }), readable),
          row: async (id) => {
            const row = await events.findById(organizationId, id);
            return row && readable(row);
          },
          expand: expandEvent,
        },
        pageLimit(page),
        page.beforeId,
      ),
    async findRow(organizationId, id) {
      const row = await events.findById(organizationId, id);
      return row ? expandEvent(await readable(row)) : null;
    },
    async findById(organizationId, id) {
      const item = splitItemId(id);
      const row = await events.findById(organizationId, item ? item.groupId : id);
      if (!row) return null;
      if (!item) return row.items ? null : expandEvent(eventWithItems(row, null))[0]!;
      if (!row.items) return null;
      // One record of a group: only the chunk that holds it is read.
      const found = await groups.loadOne("events", organizationId, row.id, row.items, item.position, codec);
      return found ? { ...expandEvent(eventWithItems(row, [found]))[0]!, id: itemId(row.id, item.position) } : null;
    },
  };
}
