/**
 * The items of the large groups of the three logs (audit trail, outbox, TLP audit chain), kept
 * out of the group rows themselves: one row per `itemsPerRow` items (core/log/groups.ts), in the
 * log's own stored form (by column where it can). Written in the group's transaction, never
 * updated; read back by the ids its group's marker implies (adapters/shared/group-items.ts).
 */
import { id, json, text } from "../declare/columns.js";
import type { RecordOf } from "../declare/resource.js";
import { defineResource } from "../declare/resource.js";

export const logGroupItemsResource = defineResource({
  table: "log_group_items",
  noun: "A chunk of a group's items",
  columns: {
    /** `<log>:<group id>:<chunk, six digits>`: a group's chunks sort in order, and groups of different logs never meet. */
    id: id(),
    organizationId: text({ references: { table: "organizations", column: "id" } }),
    /** The chunk's items, as its log stores a group's items. */
    items: json<unknown>(),
  },
});

export type LogGroupItemsRow = RecordOf<typeof logGroupItemsResource>;
