import type { CaseKitDeps } from "../context.js";
import { belowFloor } from "./floor.js";
import type { Principal } from "../access/principal.js";
import type { CustomFieldMatch } from "../cases/types.js";
import { maxCustomFieldFilters } from "../cases/types.js";
import { CaseKitError } from "../errors.js";
import type { FieldError } from "../errors.js";
import type { UnitOfWork } from "../ports/storage.js";
import type { CustomFieldScope } from "./types.js";
import { definitionsFor } from "./values.js";
import { definitionsOf } from "./definitions.js";

/** Query parameters `cf.<key>` filter on a custom field. */
const prefix = "cf.";

/** The query without its `cf.` parameters, for the list's own schema. */
export function withoutCustomFieldFilters(query: unknown): unknown {
  if (typeof query !== "object" || query === null) return query;
  return Object.fromEntries(Object.entries(query).filter(([name]) => !name.startsWith(prefix)));
}

/**
 * The `cf.<key>=<value>` filters of a list query (a bulk selectAll's `filters.customFields` too),
 * checked: each key names a filterable field of the scope that the caller is cleared to see
 * (filtering on a hidden value would tell it), one value each, at most three. Values are matched
 * as stored text: a number as JSON writes it, true / false, one option id of a multi_enum.
 */
export async function customFieldMatches(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, scope: CustomFieldScope, query: unknown): Promise<CustomFieldMatch[] | undefined> {
  const raw = typeof query === "object" && query !== null ? Object.entries(query).filter(([name]) => name.startsWith(prefix)) : [];
  return checkedMatches(deps, tx, principal, scope, raw.map(([name, value]) => [name.slice(prefix.length), value, name]));
}

/**
 * customFieldMatches for a bulk selectAll's `options.filters.customFields` (key → value). A
 * query's `cf.` parameters are not in the document, so their problems are the query's (400
 * validation_failed); a body's `customFields` filter is, and naming a field that is not there or
 * not filterable is 422 unknown_reference.
 */
export function bulkCustomFieldMatches(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, scope: CustomFieldScope, customFields: Record<string, unknown> | undefined): Promise<CustomFieldMatch[] | undefined> {
  const entries = Object.entries(customFields ?? {}).map(([key, value]): [string, unknown, string] => [key, value, `options.filters.customFields.${key}`]);
  return checkedMatches(deps, tx, principal, scope, entries, "unknown_reference");
}

/** The matches of `entries` (key, value, the path a problem names), or the problems as `code`. */
async function checkedMatches(deps: Pick<CaseKitDeps, "definitions">, tx: UnitOfWork, principal: Principal, scope: CustomFieldScope, entries: [key: string, value: unknown, path: string][], code: "validation_failed" | "unknown_reference" = "validation_failed"): Promise<CustomFieldMatch[] | undefined> {
  if (entries.length === 0) return undefined;
  const definitions = new Map(definitionsFor(await definitionsOf(deps, tx, principal.organizationId), scope).map((d) => [d.key, d]));
  const errors: FieldError[] = [];
  const matches: CustomFieldMatch[] = [];
  if (entries.length > maxCustomFieldFilters) errors.push({ path: entries[maxCustomFieldFilters]![2], message: `at most ${maxCustomFieldFilters} custom field filters` });
  for (const [key, value, path] of entries.slice(0, maxCustomFieldFilters)) {
    const definition = definitions.get(key);
    if (!definition || !definition.filterable) errors.push({ path, message: "is not a filterable custom field" });
    else if (belowFloor(definition, principal.tlpClearance)) errors.push({ path, message: "is above your TLP clearance" });
    else {
      const text = typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : null;
      if (text === null || text.length === 0 || text.length > 200) errors.push({ path, message: "must be one value of 1 to 200 characters" });
      else if ((definition.type === "integer" || definition.type === "number") && !Number.isFinite(Number(text))) errors.push({ path, message: "must be a number" });
      else matches.push({ key, value: definition.type === "integer" || definition.type === "number" ? String(Number(text)) : text });
    }
  }
  if (errors.length > 0) throw new CaseKitError(code, `${errors[0]!.path}: ${errors[0]!.message}`, errors);
  return matches;
}

/** Which markings a create body left out, so a case type's defaults can apply. */
export function omittedMarkings(input: unknown): { tlp: boolean; pap: boolean } {
  const body = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  return { tlp: body.tlp === undefined, pap: body.pap === undefined };
}
