/**
 * Status history, declared once: one row per status change of one record, written in the unit of
 * work that changes the status. A bulk page's changes go in with multi-row INSERTs
 * (`insertMany`), never a statement per record. Rows are per record, not group rows as the
 * audit trail's bulk entries are (core/log/groups.ts): history is read per record (a record's
 * page, SLA clocks, metrics by category), and a group row would make every such read decode
 * every bulk that ever touched the organization.
 */
import type { StatusChange } from "../../core/history/types.js";
import { lifecycleEntities, statusCategories } from "../../core/lifecycles/types.js";
import type { StatusHistoryRepository } from "../../core/ports/storage.js";
import { enumOf, id, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { CaseKitError } from "../../core/errors.js";
import { pageLimit } from "../shared/case-filter.js";

export const statusHistoryResource = defineResource({
  table: "status_history",
  noun: "A status change",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    entity: enumOf(lifecycleEntities),
    recordId: text(),
    from: text({ nullable: true, name: "from_status" }),
    to: text({ name: "to_status" }),
    fromCategory: enumOf(statusCategories, { nullable: true }),
    toCategory: enumOf(statusCategories, { nullable: true }),
    actorUserId: text({ nullable: true }),
    actorKeyId: text({ nullable: true }),
    at: timestamp(),
    reason: text({ nullable: true }),
  },
  fixed: ["entity", "recordId", "from", "to", "fromCategory", "toCategory", "actorUserId", "actorKeyId", "at", "reason"],
  // A record's history, oldest first, is one range of this index.
  indexes: [{ name: "status_history_organization_id_record_idx", columns: ["organizationId", "entity", "recordId", "id"] }],
  filters: {
    entity: { kind: "equals", column: "entity" },
    recordId: { kind: "equals", column: "recordId" },
  },
});

/** Compile-time proof that the declaration stores exactly the core's StatusChange. */
export const _statusChangeRecordMatches: Same<RecordOf<typeof statusHistoryResource>, StatusChange> = true;

export function statusHistoryRepository(history: DeclaredRepository<StatusChange, FilterValues<typeof statusHistoryResource>>): StatusHistoryRepository {
  return {
    append: (entry) => history.insert(entry),
    async appendMany(entries) {
      // insertMany skips an entry whose id is taken; the port promises all or none.
      if ((await history.insertMany(entries)) < entries.length) throw new CaseKitError("conflict", "A status change with this id already exists");
    },
    listByRecord: (organizationId, entity, recordId, page) =>
      history.list(organizationId, { entity, recordId }, { limit: pageLimit({ limit: page.limit }), order: "asc", after: page.afterId ?? "" }),
  };
}
