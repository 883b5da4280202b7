import { z } from "zod";
import { boundedString, finiteNumber } from "../schema/common.js";

/**
 * Subscription filters: conditions on the event's record (its payload), all of which must hold.
 * A field maps to a value (equals), a list (any of), or comparisons, e.g.
 * `{ "severity": { "gte": 3 }, "source": ["edr", "siem"], "tlp": { "lte": 2 } }`.
 * A field the record lacks never matches, so a filter on alert fields skips case events.
 */
const scalar = z.union([boundedString(500), finiteNumber(), z.boolean()]);
const comparison = z
  .strictObject({ eq: scalar, ne: scalar, gt: finiteNumber(), gte: finiteNumber(), lt: finiteNumber(), lte: finiteNumber(), in: z.array(scalar).min(1).max(100) })
  .partial()
  .refine((c) => Object.keys(c).length > 0, "give at least one of eq, ne, gt, gte, lt, lte, in")
  .meta({ minProperties: 1 });

export const webhookFiltersSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.]{0,63}$/, "must be a field name (dots reach into objects)"), z.union([scalar, z.array(scalar).min(1).max(100), comparison]))
  .refine((f) => Object.keys(f).length <= 20, "at most 20 conditions")
  .meta({ id: "WebhookFilters", maxProperties: 20, description: "Conditions on the event's record, all of which must hold: a value (equals), a list (any of), or { eq, ne, gt, gte, lt, lte, in }" });

export type WebhookFilters = z.infer<typeof webhookFiltersSchema>;

export function matchesFilters(filters: WebhookFilters, record: Record<string, unknown>): boolean {
  return Object.entries(filters).every(([field, condition]) => matches(condition, fieldOf(record, field)));
}

function fieldOf(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

type Condition = WebhookFilters[string];

function matches(condition: Condition, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(condition)) return condition.some((c) => equal(c, value));
  if (typeof condition !== "object") return equal(condition, value);
  const c = condition as { eq?: unknown; ne?: unknown; gt?: number; gte?: number; lt?: number; lte?: number; in?: unknown[] };
  if (c.eq !== undefined && !equal(c.eq, value)) return false;
  if (c.ne !== undefined && equal(c.ne, value)) return false;
  if (c.in !== undefined && !c.in.some((item) => equal(item, value))) return false;
  const ordered = [c.gt, c.gte, c.lt, c.lte].some((bound) => bound !== undefined);
  if (ordered && typeof value !== "number") return false;
  const n = value as number;
  return (c.gt === undefined || n > c.gt) && (c.gte === undefined || n >= c.gte) && (c.lt === undefined || n < c.lt) && (c.lte === undefined || n <= c.lte);
}

/** Equal, or a tag list (`[{ name }]`) / string list that contains the value. */
function equal(expected: unknown, value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => equal(expected, item) || (item !== null && typeof item === "object" && (item as { name?: unknown }).name === expected));
  return expected === value;
}
