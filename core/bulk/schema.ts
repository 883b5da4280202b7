import { z } from "zod";
import { boundedString } from "../schema/common.js";

/** Most ids one bulk request may name (conventions, "Bulk operations"); selectAll has no limit. */
export const maxBulkIds = 1000;

/** What a bulk request acts on, once its body has been checked. */
export type BulkSelection<F> = { kind: "ids"; ids: string[] } | { kind: "all"; filters: F };

/**
 * The body schema of a bulk operation: `ids` (1 to 1 000) or `options.selectAll: true` with
 * `options.filters` (the list endpoint's filters, given as `filters`), plus the operation's own
 * members (`extra`, e.g. `fields` or `assigneeId`). Naming both a selection by ids and selectAll,
 * or neither, fails validation_failed (400) at the path `options.selectAll` / `ids`, so a client
 * never gets an operation it did not mean. `options.filters` without selectAll is refused too: it
 * would silently do nothing.
 */
export function bulkRequestSchema<F extends z.ZodType, E extends z.ZodRawShape>(filters: F, extra: E) {
  return z
    .strictObject({
      ids: z
        .array(boundedString(100, 1))
        .min(1)
        .max(maxBulkIds, `at most ${maxBulkIds} ids per request; use options.selectAll with filters for more`)
        .optional()
        .meta({ description: `Ids of the records to act on (1 to ${maxBulkIds}); duplicates count once` }),
      options: z
        .strictObject({
          selectAll: z.boolean().optional().meta({ description: "Act on every record `filters` matches (no count limit) instead of `ids`" }),
          filters: filters.optional().meta({ description: "The list endpoint's filters; only with selectAll. Omitted: every record the caller can see" }),
        })
        .optional(),
      ...extra,
    })
    .superRefine((value, ctx) => {
      // The generic shape hides the two members every body has; name them.
      const body = value as unknown as SelectionBody<unknown>;
      const all = body.options?.selectAll === true;
      if (body.ids !== undefined && all) {
        ctx.addIssue({ code: "custom", path: ["options", "selectAll"], message: "give either ids or options.selectAll, not both" });
      } else if (body.ids === undefined && !all) {
        ctx.addIssue({ code: "custom", path: ["ids"], message: "give ids, or options.selectAll: true with options.filters" });
      }
      if (body.options?.filters !== undefined && !all) {
        ctx.addIssue({ code: "custom", path: ["options", "filters"], message: "filters apply only with options.selectAll: true" });
      }
    })
    .meta({ oneOf: selectionAlternatives });
}

/** The rules of the refinement above as JSON Schema, for the document: ids, or selectAll (with its filters). */
const selectAllTrue = { type: "object", required: ["selectAll"], properties: { selectAll: { const: true } } };
const selectionAlternatives = [
  { required: ["ids"], properties: { options: { not: { anyOf: [selectAllTrue, { type: "object", required: ["filters"], properties: { filters: {} } }] } } } },
  { required: ["options"], not: { required: ["ids"], properties: { ids: {} } }, properties: { options: selectAllTrue } },
];

/** The selection members of a bulk body. */
export interface SelectionBody<F> {
  ids?: string[] | undefined;
  options?: { selectAll?: boolean | undefined; filters?: F | undefined } | undefined;
}

/** The selection a checked body names (see bulkRequestSchema). */
export function selectionOf<F>(body: SelectionBody<F>, noFilters: F): BulkSelection<F> {
  if (body.ids !== undefined) return { kind: "ids", ids: [...new Set(body.ids)] };
  return { kind: "all", filters: body.options?.filters ?? noFilters };
}

const skippedSchema = z.object({
  id: z.string(),
  code: z.string().meta({
    description: "Why the record was left alone: not_found (unknown, deleted or another organization's id), tlp_restricted, or the operation's own code (e.g. invalid_transition)",
  }),
});

/** The answer of a bulk operation whose count of changed records is called `verb`. */
export function bulkResultSchema<V extends string>(verb: V) {
  return z.object({
    matched: z.int().meta({ description: `Records the request named (distinct ids) or selectAll matched; always ${verb} + skipped.length` }),
    ...({ [verb]: z.int().meta({ description: "Records changed" }) } as Record<V, z.ZodInt>),
    skipped: z.array(skippedSchema),
    bulkRequestId: z.string().meta({ description: "Carried by the audit entry and the event of every record changed (bulk_…)" }),
  });
}
