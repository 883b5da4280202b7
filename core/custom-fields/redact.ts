import { hiddenKeys } from "./floor.js";
import type { CustomFieldDefinition } from "./types.js";

/**
 * The record as a caller cleared to `clearance` may see it: every custom field whose TLP floor is
 * above the clearance is left out of `customFields`. Every path a record leaves by applies it
 * (reads, lists, bulk results, event payloads), so a value never travels further than its floor
 * (the rule: floor.ts).
 */
export function redactCustomFields<T extends { customFields: Record<string, unknown> }>(record: T, definitions: readonly CustomFieldDefinition[], clearance: number): T {
  return withoutHidden(record, hiddenKeys(definitions, clearance));
}

/** The record without the values of `hidden` keys (the same record when it has none): for many records of one organization, its hidden keys worked out once. */
export function withoutHidden<T extends { customFields: Record<string, unknown> }>(record: T, hidden: ReadonlySet<string>): T {
  if (hidden.size === 0 || !Object.keys(record.customFields).some((key) => hidden.has(key))) return record;
  const customFields = Object.fromEntries(Object.entries(record.customFields).filter(([key]) => !hidden.has(key)));
  return { ...record, customFields };
}

/**
 * A write by a caller below some floors: the values they cannot see are kept from `previous` (they
 * can neither read, set nor clear them); naming one is refused by the caller (`hiddenWrites`).
 */
export function keepHidden(values: Record<string, unknown>, previous: Record<string, unknown>, hidden: ReadonlySet<string>): Record<string, unknown> {
  if (hidden.size === 0) return values;
  const out = Object.fromEntries(Object.entries(values).filter(([key]) => !hidden.has(key)));
  for (const key of hidden) if (key in previous) out[key] = previous[key];
  return out;
}
