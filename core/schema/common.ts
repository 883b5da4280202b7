import { z } from "zod";
import { cursorPattern } from "../pagination.js";

/** Schema pieces every resource shares, so each rule is written once. */

export const tlpSchema = z.int().min(0).max(4).meta({
  description: "Traffic Light Protocol 2.0: 0 CLEAR, 1 GREEN, 2 AMBER, 3 AMBER+STRICT, 4 RED",
});
export const papSchema = z.int().min(0).max(3).meta({
  description: "Permissible Actions Protocol: 0 CLEAR, 1 GREEN, 2 AMBER, 3 RED",
});
/** An id of one kind: its prefix, `_`, 26 lower-case base32 characters (core/ports/ids.ts). */
export const idPattern = (prefix: string) => new RegExp(`^${prefix}_[0-9a-z]{26}$`);
export const idSchema = (prefix: string) => z.string().regex(idPattern(prefix), `must be a ${prefix}_ id`);
export const timestampSchema = z.iso.datetime({ offset: true }).max(64).meta({ description: "ISO 8601 date-time, UTC" });

/** Any finite JSON number (JSON text such as 1e999 reads as Infinity, which is refused). */
export const finiteNumber = () => z.number().min(-Number.MAX_VALUE).max(Number.MAX_VALUE);

/** Characters as JSON Schema counts them: Unicode code points (an emoji is one, not two UTF-16 units). */
const surrogatePairs = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;
export const characterCount = (text: string): number => text.length - (text.match(surrogatePairs)?.length ?? 0);

/** `min` to `max` characters, checked as the document's minLength / maxLength count them. */
function lengthChecked(schema: z.ZodString, max: number, min: number, minMessage?: string) {
  return schema
    .refine((s) => characterCount(s) >= min, minMessage ?? `must be at least ${min} character${min === 1 ? "" : "s"}`)
    .refine((s) => characterCount(s) <= max, `must be at most ${max} characters`)
    .meta({ maxLength: max, ...(min > 0 ? { minLength: min } : {}) });
}

/**
 * A string of `min` to `max` characters. Use it (not z.string().max) for every bounded input
 * string: String.length counts UTF-16 units, JSON Schema counts code points, and the two differ
 * for every character outside the BMP.
 */
export const boundedString = (max: number, min = 0, minMessage?: string) => lengthChecked(z.string(), max, min, minMessage);

/**
 * Text stored trimmed: leading and trailing white space is dropped, and what remains must not be
 * empty. The `\S` check runs after the trim, and is what the document shows as `pattern`.
 */
export const trimmedText = (max: number) => lengthChecked(z.string().trim().regex(/\S/, "must not be empty or only white space"), max, 0);

/**
 * An email address, checked with one pattern that the document declares beside `format: email`:
 * a dot-atom local part of letters, digits and `_ ' + -`, and a domain of letter-digit-hyphen
 * labels (no hyphen at either end) under an alphabetic top-level label. Every address it accepts
 * is also a valid `email` for JSON Schema validators, so the server checks what it declares.
 */
export const emailPattern = /^[A-Za-z0-9_'+-]+(?:\.[A-Za-z0-9_'+-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;
export const emailSchema = z.email({ pattern: emailPattern }).max(320); // ASCII only: units are characters

/**
 * A change body: only the fields to change, at least one of them. The refinement checks it and
 * `minProperties` says it in the document, side by side so they cannot drift apart.
 */
export function changeSchema<S extends z.ZodRawShape>(shape: S, message = "give at least one field to change") {
  return z
    .strictObject(shape)
    .partial()
    .refine((v) => Object.keys(v).length > 0, message)
    .meta({ minProperties: 1 });
}

export const resourceMetaShape = {
  id: z.string(),
  organizationId: z.string(),
  createdAt: z.string().meta({ format: "date-time" }),
  updatedAt: z.string().meta({ format: "date-time" }),
  createdBy: z.string().nullable().meta({ description: "Id of the user who created the record" }),
};

/**
 * A whole number between `min` and `max` as a list filter takes it: text in a query string
 * (`?tlp=3`), read as a number. A bulk body's `options.filters` is JSON and takes `jsonInt`, so a
 * string there is refused as the document says.
 */
export const queryInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
export const jsonInt = (min: number, max: number) => z.int().min(min).max(max);
export type IntReader = typeof queryInt | typeof jsonInt;

/** `limit` and `cursor`, shared by every list query. */
export const pageQueryShape = {
  limit: queryInt(1, 500).default(50),
  cursor: z.string().max(100).regex(cursorPattern, "is not a cursor this API issued").optional().meta({ description: "Opaque cursor from a previous page's nextCursor" }),
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
