/**
 * The transactional outbox, declared once: both dialects' tables, rows and SQL come from this
 * declaration, and the port's EventRepository is the generic repository listed newest first. The
 * dispatcher's claim of events to fan out is in delivery-claims.ts.
 */
import type { DomainEvent } from "../../core/events/types.js";
import { CaseKitError } from "../../core/errors.js";
import type { EventRepository } from "../../core/ports/storage.js";
import { id, int, internal, json, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";

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
    /** When the webhook dispatcher fanned the event out (claimEvents); null until then. */
    dispatchedAt: internal(timestamp({ nullable: true })),
  },
  indexes: [
    { name: "events_organization_id_idx", columns: ["organizationId", "id"] },
    // The dispatcher's queue: only undispatched events are in it, so it stays small however long the outbox grows.
    { name: "events_undispatched_idx", columns: ["id"], where: "dispatched_at IS NULL" },
  ],
});

/** Compile-time proof that the declaration stores exactly the core's DomainEvent. */
export const _eventRecordMatches: Same<RecordOf<typeof eventResource>, DomainEvent> = true;

export function eventRepository(events: DeclaredRepository<DomainEvent, FilterValues<typeof eventResource>>): EventRepository {
  return {
    append: (event) => events.insert(event),
    async appendMany(batch) {
      // A clash leaves rows unwritten: refusing fails the unit, which then writes none of them.
      if ((await events.insertMany(batch)) < batch.length) throw new CaseKitError("conflict", `${eventResource.spec.noun} with this id already exists`);
    },
    list: (organizationId, page) => events.list(organizationId, {}, { limit: pageLimit(page), order: "desc", after: page.beforeId }),
    findById: (organizationId, id) => events.findById(organizationId, id),
  };
}
