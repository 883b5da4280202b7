/**
 * The general audit trail, declared once: both dialects' tables, rows and SQL come from this
 * declaration, and the port's AuditRepository is the generic repository (append-only: nothing
 * here updates or deletes). A group entry (a bulk operation: one row listing its records in
 * `items`) is read as one entry per record (core/log/groups.ts).
 */
import type { AuditEntry, AuditItem } from "../../core/audit/types.js";
import { expandAudit } from "../../core/log/groups.js";
import { CaseKitError } from "../../core/errors.js";
import type { AuditRepository } from "../../core/ports/storage.js";
import { id, nullableJson, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import { groupedPage } from "../shared/grouped-pages.js";
import { groupItemsColumn } from "../shared/json-in-slices.js";

export const auditResource = defineResource({
  table: "audit_log",
  noun: "An audit entry",
  columns: {
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    actorUserId: text({ nullable: true }),
    actorKeyId: text({ nullable: true }),
    action: text(),
    resourceType: text(),
    resourceId: text(),
    changes: nullableJson<Record<string, { from: unknown; to: unknown }>>(),
    requestId: text({ nullable: true }),
    ip: text({ nullable: true }),
    userAgent: text({ nullable: true }),
    at: timestamp(),
    /** The bulk request this entry is one record of, or null. */
    bulkRequestId: text({ nullable: true }),
    /** A group entry's records, each with its changes (core/audit/types.ts AuditGroupEntry); null for a single entry. */
    items: nullableJson<AuditItem[]>(),
  },
  // A page is one range of this index, newest first.
  indexes: [{ name: "audit_log_organization_id_idx", columns: ["organizationId", "id"] }],
});

/** An audit row as stored: a single entry (items null) or a group entry. */
type StoredAuditEntry = AuditEntry & { items: AuditItem[] | null };

/** Compile-time proof that the declaration stores exactly the core's AuditEntry, and a group's items. */
export const _auditRecordMatches: Same<RecordOf<typeof auditResource>, StoredAuditEntry> = true;

const stored = (entry: AuditEntry & { items?: readonly AuditItem[] }): StoredAuditEntry => ({ ...entry, items: entry.items ? [...entry.items] : null });

/** A group entry's items are written as JSON in slices (a bulk's 100 000 records), not in one stretch. */
const storedInSlices = async (entry: AuditEntry & { items?: readonly AuditItem[] }): Promise<StoredAuditEntry> =>
  entry.items ? { ...entry, items: await groupItemsColumn(entry.items as AuditItem[], entry.items.length) } : stored(entry);

export function auditRepository(audit: DeclaredRepository<StoredAuditEntry, FilterValues<typeof auditResource>>): AuditRepository {
  return {
    append: async (entry) => audit.insert(await storedInSlices(entry)),
    async appendMany(entries) {
      // insertMany skips an entry whose id is taken; the port promises all or none, so a short
      // count refuses the page, and the unit it fails rolls back the rows already written.
      if ((await audit.insertMany(entries.map(stored))) < entries.length) throw new CaseKitError("conflict", "An audit entry with this id already exists");
    },
    list: (organizationId, page) =>
      groupedPage(
        {
          rows: (before, limit) => audit.list(organizationId, {}, { limit, order: "desc", after: before }),
          row: (id) => audit.findById(organizationId, id),
          expand: expandAudit,
        },
        pageLimit(page),
        page.beforeId,
      ),
  };
}
