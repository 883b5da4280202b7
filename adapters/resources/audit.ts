/**
 * The general audit trail, declared once: both dialects' tables, rows and SQL come from this
 * declaration, and the port's AuditRepository is the generic repository (append-only: nothing
 * here updates or deletes). A group entry (a bulk operation: one row listing its records in
 * `items`, by column, in chunk rows when many: shared/group-items.ts) is read as one entry per
 * record (core/log/groups.ts).
 */
import type { AuditEntry, AuditItem } from "../../core/audit/types.js";
import type { ChunkedItems } from "../../core/log/groups.js";
import { expandAudit } from "../../core/log/groups.js";
import { CaseKitError } from "../../core/errors.js";
import type { AuditRepository } from "../../core/ports/storage.js";
import { id, nullableJson, text, timestamp } from "../declare/columns.js";
import type { DeclaredRepository } from "../declare/repository.js";
import type { FilterValues, RecordOf, Same } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";
import { pageLimit } from "../shared/case-filter.js";
import { groupedPage } from "../shared/grouped-pages.js";
import type { StoredRecords } from "../../core/log/compact-records.js";
import { compactRecords, recordsOf } from "../../core/log/compact-records.js";
import type { Dialect } from "../declare/dialect.js";
import type { GroupItems, ItemsCodec } from "../shared/group-items.js";
import { eachInTurn } from "../shared/group-items.js";

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
    /**
     * A group entry's records, each with its changes (core/audit/types.ts AuditGroupEntry), by
     * column (core/log/compact-records.ts), or the marker of their chunk rows; null for a single entry.
     */
    items: nullableJson<StoredAuditItems>(),
  },
  // A page is one range of this index, newest first.
  indexes: [{ name: "audit_log_organization_id_idx", columns: ["organizationId", "id"] }],
});

/** A group's items as its row holds them: by column or plain (older rows), or the marker of chunk rows. */
type StoredAuditItems = StoredRecords<AuditItem> | ChunkedItems;

/** An audit row as stored: a single entry (items null) or a group entry. */
type StoredAuditEntry = AuditEntry & { items: StoredAuditItems | null };

/** Compile-time proof that the declaration stores exactly the core's AuditEntry, and a group's items. */
export const _auditRecordMatches: Same<RecordOf<typeof auditResource>, StoredAuditEntry> = true;

export function auditRepository(audit: DeclaredRepository<StoredAuditEntry, FilterValues<typeof auditResource>>, groups: GroupItems, dialect: Dialect): AuditRepository {
  const codec: ItemsCodec<AuditItem> = {
    encode: (items) => compactRecords(items, dialect.jsonKeyOrder),
    decode: (stored) => recordsOf(stored as StoredRecords<AuditItem>),
  };
  const stored = async (entry: AuditEntry & { items?: readonly AuditItem[] }): Promise<StoredAuditEntry> => ({
    ...entry,
    items: entry.items ? ((await groups.store("audit", entry.organizationId, entry.id, entry.items, codec)) as StoredAuditItems) : null,
  });
  /** The row with its group's items read back (from its chunk rows when there are). */
  const readable = async (row: StoredAuditEntry): Promise<AuditEntry & { items: AuditItem[] | null }> => ({
    ...row,
    items: row.items === null ? null : await groups.load("audit", row.organizationId, row.id, row.items, codec),
  });
  return {
    append: async (entry) => audit.insert(await stored(entry)),
    async appendMany(entries) {
      const rows: StoredAuditEntry[] = [];
      for (const entry of entries) rows.push(await stored(entry));
      // insertMany skips an entry whose id is taken; the port promises all or none, so a short
      // count refuses the page, and the unit it fails rolls back the rows already written.
      if ((await audit.insertMany(rows)) < entries.length) throw new CaseKitError("conflict", "An audit entry with this id already exists");
    },
    list: (organizationId, page) =>
      groupedPage(
        {
          rows: async (before, limit) => eachInTurn(await audit.list(organizationId, {}, { limit, order: "desc", after: before }), readable),
          row: async (id) => {
            const row = await audit.findById(organizationId, id);
            return row && readable(row);
          },
          expand: expandAudit,
        },
        pageLimit(page),
        page.beforeId,
      ),
  };
}
