/**
 * A declared list filter evaluated in memory, the model the database's answer is compared with,
 * and filter values drawn from a dataset so that some records match and some do not. `condition`
 * and `idAmong` filters are SQL of their own, which no generic model evaluates: the checks only hold them to
 * tenant scoping and soft-delete invisibility, and each resource's own suite checks their rule.
 */
import fc from "fast-check";
import type { FilterSpec, Resource } from "../../adapters/declare/resource.js";
import type { Row } from "./declared-records.js";
import { kindArbitrary, tagNames } from "./declared-records.js";

export type Evaluable = Exclude<FilterSpec<string>, { kind: "condition" | "idAmong" }>;

export const evaluable = (spec: FilterSpec<string>): spec is Evaluable => spec.kind !== "condition" && spec.kind !== "idAmong";

/** Values compare as the databases compare them: numbers as numbers, text (ISO timestamps too) by code point. */
const compare = (a: unknown, b: unknown): number => (a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1);

/** Whether `record` matches the filter `spec` given `value` (SQL's NULL matches nothing). */
export function matches(spec: Evaluable, record: Row, value: unknown): boolean {
  const held = record[spec.column];
  // A range with neither bound constrains nothing, as the SQL adds no condition for it: rows
  // whose column is null match it too.
  if (spec.kind === "range" && (value as { after?: unknown }).after === undefined && (value as { before?: unknown }).before === undefined) return true;
  if (held === null || held === undefined) return false;
  switch (spec.kind) {
    case "equals":
      return held === value;
    case "anyOf":
      return (value as unknown[]).includes(held);
    case "range": {
      const { after, before } = value as { after?: unknown; before?: unknown };
      return (after === undefined || compare(held, after) > 0) && (before === undefined || compare(held, before) < 0);
    }
    case "atLeast":
      return compare(held, value) >= 0;
    case "below":
      return compare(held, value) < 0;
    case "jsonTags": {
      const names = (held as unknown[]).map((element) => (spec.key === undefined ? element : (element as Row)[spec.key]));
      return names.some((name) => (value as unknown[]).includes(name));
    }
    case "contains":
      return (held as string).toLowerCase().includes((value as string).toLowerCase());
  }
}

/** A value the filter takes, for its column's kind: one `records` hold, or a fresh one. */
function columnValue(resource: Resource, spec: FilterSpec<string>, records: readonly Row[]): fc.Arbitrary<unknown> {
  const fresh = kindArbitrary(resource, resource.byKey.get(spec.column)!);
  const held = records.map((r) => r[spec.column]).filter((v) => v !== null);
  return held.length === 0 ? fresh : fc.oneof(fc.constantFrom(...held), fresh);
}

/** A text the contains filter looks for: part of a held text in any case, a fresh word, or LIKE's own characters. */
function needle(records: readonly Row[], column: string): fc.Arbitrary<string> {
  const held = records.map((r) => r[column]).filter((v): v is string => typeof v === "string" && v.length > 0);
  const literal = fc.constantFrom("%", "_", "\\", "%_", "ALPHA", "nowhere");
  if (held.length === 0) return literal;
  const part = fc
    .tuple(fc.constantFrom(...held), fc.nat(), fc.nat(), fc.constantFrom("as is", "upper", "lower"))
    .map(([text, a, b, folding]) => {
      const chars = [...text]; // whole code points: no lone surrogate
      const start = a % chars.length;
      const slice = chars.slice(start, start + 1 + (b % (chars.length - start))).join("");
      return folding === "upper" ? slice.toUpperCase() : folding === "lower" ? slice.toLowerCase() : slice;
    });
  return fc.oneof(part, literal);
}

/** The `?` marks of a condition's SQL. */
const marksOf = (sql: string): number => sql.split("?").length - 1;

/** A value of the filter named by `spec`, drawn from `records` and beyond them. */
export function filterValueArbitrary(resource: Resource, spec: FilterSpec<string>, records: readonly Row[]): fc.Arbitrary<unknown> {
  switch (spec.kind) {
    case "equals":
    case "atLeast":
    case "below":
      return columnValue(resource, spec, records);
    case "condition":
    case "idAmong":
      // With `each`, one value per mark.
      return spec.each ? fc.array(columnValue(resource, spec, records), { minLength: marksOf(spec.sql), maxLength: marksOf(spec.sql) }) : columnValue(resource, spec, records);
    case "anyOf":
      return fc.array(columnValue(resource, spec, records), { maxLength: 3 });
    case "range": {
      const bound = fc.option(columnValue(resource, spec, records), { nil: undefined });
      return fc.tuple(bound, bound).map(([after, before]) => ({ ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) }));
    }
    case "jsonTags":
      return fc.array(fc.constantFrom(...tagNames, "never-stored"), { maxLength: 3 });
    case "contains":
      return needle(records, spec.column);
  }
}

/** A value just above `held`, of its column's kind. */
function above(resource: Resource, spec: FilterSpec<string>, held: unknown): unknown {
  const kind = resource.byKey.get(spec.column)!.column.kind;
  if (typeof held === "number") return held + 1;
  if (kind === "timestamp") return new Date(Date.parse(held as string) + 1).toISOString();
  return `${String(held)}~`; // a text sorts before itself lengthened
}

/**
 * A value of the filter that `record` matches, or undefined when none can (its column is null, or
 * holds no tag); a condition filter gets the record's own value, whatever it then selects.
 */
export function valueMatching(resource: Resource, spec: FilterSpec<string>, record: Row): unknown {
  const held = record[spec.column];
  if (held === null || held === undefined) return undefined;
  switch (spec.kind) {
    case "equals":
    case "atLeast":
      return held;
    case "condition":
    case "idAmong":
      return spec.each ? Array.from({ length: marksOf(spec.sql) }, () => held) : held;
    case "anyOf":
      return [held];
    case "range":
      return { before: above(resource, spec, held) };
    case "below":
      return above(resource, spec, held);
    case "jsonTags": {
      const names = (held as unknown[]).map((element) => (spec.key === undefined ? element : (element as Row)[spec.key]));
      return names.length === 0 ? undefined : [names[0]];
    }
    case "contains":
      return held;
  }
}
