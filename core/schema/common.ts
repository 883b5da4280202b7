import { z } from "zod";

/** Schema pieces every resource shares, so each rule is written once. */

export const tlpSchema = z.int().min(0).max(4).meta({
  description: "Traffic Light Protocol 2.0: 0 CLEAR, 1 GREEN, 2 AMBER, 3 AMBER+STRICT, 4 RED",
});
export const papSchema = z.int().min(0).max(3).meta({
  description: "Permissible Actions Protocol: 0 CLEAR, 1 GREEN, 2 AMBER, 3 RED",
});
export const idSchema = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{26}$`), `must be a ${prefix}_ id`);
export const timestampSchema = z.iso.datetime({ offset: true }).meta({ description: "ISO 8601 date-time, UTC" });

export const resourceMetaShape = {
  id: z.string(),
  organizationId: z.string(),
  createdAt: z.string().meta({ format: "date-time" }),
  updatedAt: z.string().meta({ format: "date-time" }),
  createdBy: z.string().nullable().meta({ description: "Id of the user who created the record" }),
};

/** `limit` and `cursor`, shared by every list query. */
export const pageQueryShape = {
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(200).optional().meta({ description: "Opaque cursor from a previous page's nextCursor" }),
};

/**
 * A query parameter that may repeat (`?severity=3&severity=4` means any of 3, 4), at most
 * `maxValues` times (50 by default). The count × the longest value, percent-encoded, must fit in
 * the host's request head (431 beyond it); a filter with long values takes fewer
 * (test/server/edge-query-head.test.ts checks every list route).
 */
export function anyOf<T extends z.ZodType>(item: T, maxValues = 50) {
  return z
    .union([item, z.array(item).min(1).max(maxValues)])
    .transform((v): z.output<T>[] => (Array.isArray(v) ? v : [v]) as z.output<T>[]);
}

export function listResponseSchema<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    nextCursor: z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page" }),
  });
}
